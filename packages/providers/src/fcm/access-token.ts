import { createPrivateKey, sign, type KeyObject } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { FcmCredentials, TokenResult } from '../types';
import type { FcmLogger } from './logger';
import { parseJson, parseRetryAfter } from './results';

export const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';
export const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const ASSERTION_LIFETIME_S = 3600;
const REFRESH_MARGIN_MS = 5 * 60_000;

export type TokenFailure = Extract<TokenResult, { status: 'auth_failed' | 'retryable' | 'failed' }>;

/** Why no access token could be had; `result` applies to every message of the send. */
export class AccessTokenError extends Error {
  constructor(readonly result: TokenFailure) {
    super(result.error);
    this.name = 'AccessTokenError';
  }
}

export interface AccessTokenSourceOptions {
  tokenUrl: string;
  timeoutMs: number;
  now: () => number;
  logger: FcmLogger;
}

/** OAuth2 access tokens from a service account (RFC 7523 JWT-bearer grant), cached, one refresh at a time. */
export class AccessTokenSource {
  private cached?: { token: string; refreshAt: number; expiresAt: number };
  private inflight?: Promise<string>;
  private key?: KeyObject;

  constructor(
    private readonly credentials: FcmCredentials,
    private readonly options: AccessTokenSourceOptions,
  ) {}

  /** The cached token, or a new one; concurrent callers share one request. Rejects with AccessTokenError. */
  get(): Promise<string> {
    const cached = this.cached;
    if (cached && this.options.now() < cached.refreshAt) return Promise.resolve(cached.token);
    return this.refresh().catch((err: unknown) => {
      // An early refresh that failed for a transient reason leaves the old token usable until it expires.
      const still = this.cached;
      if (err instanceof AccessTokenError && err.result.status === 'retryable' && still && this.options.now() < still.expiresAt) return still.token;
      throw err;
    });
  }

  /** A token obtained now (or by the request already under way), whatever the cache holds. */
  refresh(): Promise<string> {
    this.inflight ??= this.fetchToken().finally(() => {
      this.inflight = undefined;
    });
    return this.inflight;
  }

  /** Drops `token` if it is still the cached one: FCM no longer accepts it. */
  invalidate(token: string): void {
    if (this.cached?.token === token) this.cached = undefined;
  }

  private async fetchToken(): Promise<string> {
    const { projectId, clientEmail } = this.credentials;
    const requestedAt = this.options.now();
    const form = new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion: this.assertion(requestedAt) }).toString();

    let response: { status: number; headers: http.IncomingHttpHeaders; body: string };
    try {
      response = await postForm(this.options.tokenUrl, form, this.options.timeoutMs);
    } catch (err) {
      throw this.failure({ status: 'retryable', error: `OAuth token request failed: ${(err as Error).message}` });
    }

    const body = parseJson(response.body);
    if (response.status === 200 && typeof body?.access_token === 'string' && typeof body.expires_in === 'number') {
      const lifetimeMs = body.expires_in * 1000;
      // Refresh 5 minutes early; a short-lived token (an emulator's) is kept for half its life instead.
      this.cached = {
        token: body.access_token,
        refreshAt: requestedAt + lifetimeMs - Math.min(REFRESH_MARGIN_MS, lifetimeMs / 2),
        expiresAt: requestedAt + lifetimeMs,
      };
      this.options.logger.debug({ projectId, clientEmail, expiresInS: body.expires_in }, 'FCM access token obtained');
      return body.access_token;
    }

    const reason = typeof body?.error === 'string' ? `${body.error}${typeof body.error_description === 'string' ? `: ${body.error_description}` : ''}` : 'no token in the answer';
    const error = `OAuth token endpoint answered ${response.status} (${reason})`;
    if (response.status === 400 || response.status === 401 || response.status === 403) {
      throw this.failure({ status: 'auth_failed', error: `Service-account credentials rejected: ${error}` });
    }
    if (response.status === 429 || response.status >= 500) {
      throw this.failure({ status: 'retryable', error, retryAfterMs: parseRetryAfter(response.headers['retry-after'], this.options.now()) });
    }
    throw this.failure({ status: 'failed', error });
  }

  /** The RS256-signed JWT that asks for an FCM-scoped token. */
  private assertion(nowMs: number): string {
    const iat = Math.floor(nowMs / 1000);
    const claims = { iss: this.credentials.clientEmail, scope: FCM_SCOPE, aud: GOOGLE_TOKEN_URL, iat, exp: iat + ASSERTION_LIFETIME_S };
    const signingInput = `${base64url({ alg: 'RS256', typ: 'JWT' })}.${base64url(claims)}`;
    return `${signingInput}.${sign('RSA-SHA256', Buffer.from(signingInput), this.signingKey()).toString('base64url')}`;
  }

  private signingKey(): KeyObject {
    if (this.key) return this.key;
    try {
      // Keys pasted from a JSON file through an env var often keep their `\n` escapes.
      this.key = createPrivateKey(this.credentials.privateKey.replace(/\\n/g, '\n'));
    } catch {
      // The crypto error is dropped on purpose: nothing derived from the key goes into a message.
      throw this.failure({ status: 'auth_failed', error: 'The service-account private key is not a valid PEM private key' });
    }
    return this.key;
  }

  private failure(result: TokenFailure): AccessTokenError {
    const { projectId, clientEmail } = this.credentials;
    this.options.logger.warn({ projectId, clientEmail, status: result.status, error: result.error }, 'FCM access token not obtained');
    return new AccessTokenError(result);
  }
}

function base64url(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/**
 * One form POST over HTTP/1.1, plenty for a request an hour. No keep-alive: an idle pooled socket the
 * server has closed would fail the next refresh for nothing.
 */
function postForm(url: string, form: string, timeoutMs: number): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  const request = url.startsWith('https:') ? https.request : http.request;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent: false,
        timeout: timeoutMs,
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(form) },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`timed out after ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(form);
  });
}
