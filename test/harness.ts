import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Writable } from 'node:stream';
import { loadApiConfig, type ApiConfig } from '@herald/config';
import { createApiServer } from '../apps/api/src/app';
import { createContainer, type ApiContainer } from '../apps/api/src/container';
import { createLogger } from '../apps/api/src/logger';
import { waitForRedis } from '../apps/api/src/redis';
import { startSmtp } from './smtp';

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  /** Raw body, sent as is (with `contentType`). */
  raw?: string | Buffer | FormData;
  contentType?: string;
  token?: string;
  apiKey?: string;
  headers?: Record<string, string>;
  query?: Record<string, string | number | undefined>;
}

export const unique = (label = 'u') => `${label}-${randomBytes(5).toString('hex')}`;
export const uniqueEmail = (label = 'user') => `${unique(label)}@example.test`;
export const PASSWORD = 'correct horse battery';

export interface Session {
  id: string;
  email: string;
  password: string;
  accessToken: string;
  refreshToken: string;
}

/** One request over a real socket; the body is parsed as JSON when it is JSON. */
export async function httpRequest<T = any>(baseUrl: string, method: string, path: string, opts: RequestOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.apiKey) headers['x-api-key'] = opts.apiKey;
  let body: string | Buffer | FormData | undefined;
  if (opts.raw !== undefined) {
    body = opts.raw;
    if (opts.contentType) headers['content-type'] = opts.contentType;
  } else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] = 'application/json';
  }
  const qs = opts.query
    ? '?' + new URLSearchParams(Object.entries(opts.query).flatMap(([k, v]): [string, string][] => (v === undefined ? [] : [[k, String(v)]]))).toString()
    : '';
  const res = await fetch(baseUrl + path + qs, { method, headers, body: body as RequestInit['body'] });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed as T, headers: res.headers, text };
}

/** Environment for a test API: the run's database and Redis prefix, fast bcrypt, generous limits. */
export function testEnv(overrides: Record<string, string> = {}): Record<string, string | undefined> {
  return {
    ...process.env,
    NODE_ENV: 'test',
    JWT_SECRET: 'test-secret-that-is-long-enough-for-hs256-signing',
    BCRYPT_ROUNDS: '4',
    LOG_LEVEL: 'info',
    APP_URL: 'http://herald.test',
    RATE_LIMIT_AUTH: '100000',
    RATE_LIMIT_SIGNUP: '100000',
    RATE_LIMIT_SEND: '100000',
    RATE_LIMIT_SEND_BULK: '100000',
    RATE_LIMIT_PROJECT_SEND: '0',
    PROJECTS_PER_ACCOUNT: '100000',
    RATE_LIMIT_REGISTER_DEVICE: '100000',
    RATE_LIMIT_USER_ATTRIBUTES: '100000',
    RATE_LIMIT_USER_ATTRIBUTES_BULK: '100000',
    RATE_LIMIT_AUDIENCE_COUNT: '100000',
    RATE_LIMIT_INVITES_PER_PROJECT: '100000',
    RATE_LIMIT_INVITES_PER_INVITER: '100000',
    RATE_LIMIT_INVITES_PER_ADDRESS: '100000',
    ...overrides,
  };
}

/**
 * Starts a real API (Express on an ephemeral port, real Postgres and Redis, real SMTP) and offers
 * typed requests against it. Log lines are captured for assertions about secrets.
 */
export async function startApi(envOverrides: Record<string, string> = {}) {
  const smtp = await startSmtp();
  const config: ApiConfig = loadApiConfig(testEnv({ SMTP_URL: smtp.url, ...envOverrides }));
  const logLines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logLines.push(chunk.toString());
      cb();
    },
  });
  const logger = createLogger(config.logLevel, sink, { keepLinkTokens: config.mail.logLinks });
  const container: ApiContainer = createContainer(config, { logger });
  await waitForRedis(container.redis, 5000);
  const server: Server = createApiServer(container).listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const responses: string[] = [];

  async function request<T = any>(method: string, path: string, opts: RequestOptions = {}): Promise<ApiResponse<T>> {
    const res = await httpRequest<T>(url, method, path, opts);
    responses.push(res.text);
    return res;
  }

  const h = {
    url,
    config,
    container,
    db: container.db,
    smtp,
    logLines,
    /** Every response body this harness received, for secret scans. */
    responses,
    request,
    get: <T = any>(path: string, opts?: RequestOptions) => request<T>('GET', path, opts),
    post: <T = any>(path: string, opts?: RequestOptions) => request<T>('POST', path, opts),
    put: <T = any>(path: string, opts?: RequestOptions) => request<T>('PUT', path, opts),
    patch: <T = any>(path: string, opts?: RequestOptions) => request<T>('PATCH', path, opts),
    delete: <T = any>(path: string, opts?: RequestOptions) => request<T>('DELETE', path, opts),

    async signup(overrides: Partial<{ email: string; password: string; firstName: string; lastName: string }> = {}) {
      const body = { email: uniqueEmail(), password: PASSWORD, firstName: 'Ada', lastName: 'Lovelace', ...overrides };
      const res = await request('POST', '/auth/signup', { body });
      if (res.status !== 201) throw new Error(`signup failed: ${res.status} ${res.text}`);
      return { ...res.body, password: body.password } as { id: string; email: string; password: string; role: string };
    },

    async signin(email: string, password = PASSWORD) {
      const res = await request('POST', '/auth/signin', { body: { email, password } });
      if (res.status !== 200) throw new Error(`signin failed: ${res.status} ${res.text}`);
      return res.body as { accessToken: string; refreshToken: string; expiresIn: number };
    },

    /** A new account, signed in. */
    async user(overrides: Partial<{ email: string; password: string; firstName: string; lastName: string }> = {}): Promise<Session> {
      const u = await h.signup(overrides);
      const tokens = await h.signin(u.email, u.password);
      return { id: u.id, email: u.email, password: u.password, ...tokens };
    },

    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await container.close();
      await smtp.close();
    },
  };
  return h;
}

export type Harness = Awaited<ReturnType<typeof startApi>>;

/** Asserts the error body of docs/api.md#errors. */
export function expectError(res: ApiResponse, status: number, message?: string | RegExp) {
  expect({ status: res.status, body: res.body }).toMatchObject({ status, body: { statusCode: status } });
  expect(typeof res.body.message).toBe('string');
  expect(typeof res.body.error).toBe('string');
  if (message instanceof RegExp) expect(res.body.message).toMatch(message);
  else if (message !== undefined) expect(res.body.message).toBe(message);
}
