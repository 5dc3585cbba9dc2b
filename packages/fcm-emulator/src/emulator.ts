import { randomBytes } from 'node:crypto';
import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import { FaultBook, parseFault, type ActiveFault, type Fault } from './faults';
import {
  GOOGLE_TOKEN_URL,
  JWT_BEARER_GRANT,
  checkClaims,
  parseAssertion,
  toServiceAccount,
  verifySignature,
  type GoogleServiceAccountJson,
  type ServiceAccount,
  type ServiceAccountInput,
} from './oauth';
import { fcmErrors, json, noContent, oauthError, type Reply } from './replies';
import { validateSendRequest } from './validate';

export interface FcmEmulatorOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  host?: string;
  /** Accept assertions from service accounts the emulator does not know (unverified, valid for any project). */
  open?: boolean;
  serviceAccounts?: ReadonlyArray<ServiceAccountInput | GoogleServiceAccountJson>;
  /** `expires_in` of issued access tokens, in seconds. Google's is 3599. */
  tokenExpiresInS?: number;
  /** Delay of `slow-` tokens without a number (`slow250-` waits 250 ms). */
  slowMs?: number;
  /** Retry-After of `ratelimit-` tokens, in seconds. */
  retryAfterS?: number;
  /** Recorded messages kept; the oldest half is dropped when full. */
  maxRecords?: number;
  /** SETTINGS_MAX_CONCURRENT_STREAMS advertised to HTTP/2 clients (Node's default: unlimited). */
  maxConcurrentStreams?: number;
  /** Clock in ms, for token lifetimes and assertion times. */
  now?: () => number;
}

export interface ReceivedMessage {
  /** The message name answered, `projects/{project}/messages/{n}`. */
  name: string;
  project: string;
  token?: string;
  topic?: string;
  condition?: string;
  /** The service account (assertion `iss`) whose access token authorised the send. */
  clientEmail: string;
  /** The `message` object exactly as received. */
  message: Record<string, unknown>;
  /** ms since the epoch, by the emulator's clock. */
  receivedAt: number;
}

export interface ReceivedFilter {
  token?: string;
  project?: string;
}

export interface EmulatorStats {
  /** TCP connections accepted. */
  connections: number;
  tokenRequests: number;
  tokensIssued: number;
  sendRequests: number;
  accepted: number;
  /** validate_only requests that passed validation. */
  validated: number;
  rejected: number;
}

export interface FcmEmulator {
  /** `http://127.0.0.1:port` */
  readonly url: string;
  /** `127.0.0.1:port`, the value of FCM_EMULATOR_HOST. */
  readonly host: string;
  readonly port: number;
  addServiceAccount(account: ServiceAccountInput | GoogleServiceAccountJson): void;
  received(filter?: ReceivedFilter): ReceivedMessage[];
  /** Messages sent with `validate_only` (dry runs): checked like any other, answered, never delivered, kept apart. */
  validated(filter?: ReceivedFilter): ReceivedMessage[];
  stats(): EmulatorStats;
  setFault(fault: Fault): void;
  clearFaults(): void;
  setTokenExpiresIn(seconds: number): void;
  /** Ends every client connection: `goaway` closes HTTP/2 sessions gracefully (in-flight streams finish), `destroy` kills the sockets. */
  disconnect(mode?: 'goaway' | 'destroy'): void;
  /** Forgets received messages, faults and counters; keeps service accounts and issued access tokens. */
  reset(): void;
  close(): Promise<void>;
}

interface IssuedToken {
  clientEmail: string;
  /** Undefined for open-mode tokens of unknown accounts: valid for any project. */
  projectId?: string;
  expiresAt: number;
}

const SEND_PATH = /^\/v1\/projects\/([^/]+)\/messages:send$/;

class EmulatorState {
  private readonly accounts = new Map<string, ServiceAccount>();
  private readonly tokens = new Map<string, IssuedToken>();
  private records: ReceivedMessage[] = [];
  private validations: ReceivedMessage[] = [];
  private readonly faults: FaultBook;
  private counters: EmulatorStats = emptyStats();
  private messageSeq = 0;
  private tokenExpiresInS: number;
  private readonly maxRecords: number;
  private readonly now: () => number;
  readonly audiences = new Set([GOOGLE_TOKEN_URL]);

  constructor(private readonly options: FcmEmulatorOptions) {
    this.now = options.now ?? Date.now;
    this.tokenExpiresInS = options.tokenExpiresInS ?? 3599;
    this.maxRecords = options.maxRecords ?? 100_000;
    this.faults = new FaultBook({ slowMs: options.slowMs ?? 2000, retryAfterS: options.retryAfterS ?? 1 });
    for (const account of options.serviceAccounts ?? []) this.addServiceAccount(account);
  }

  addServiceAccount(input: ServiceAccountInput | GoogleServiceAccountJson): void {
    const account = toServiceAccount(input);
    this.accounts.set(account.clientEmail, account);
  }

  setTokenExpiresIn(seconds: number): void {
    this.tokenExpiresInS = seconds;
  }

  setFault(fault: Fault): void {
    this.faults.add(fault);
  }

  clearFaults(): void {
    this.faults.clear();
  }

  stats(): EmulatorStats {
    return { ...this.counters };
  }

  countConnection(): void {
    this.counters.connections++;
  }

  received(filter: ReceivedFilter = {}): ReceivedMessage[] {
    return select(this.records, filter);
  }

  validated(filter: ReceivedFilter = {}): ReceivedMessage[] {
    return select(this.validations, filter);
  }

  clearReceived(): void {
    this.records = [];
  }

  clearValidated(): void {
    this.validations = [];
  }

  reset(): void {
    this.records = [];
    this.validations = [];
    this.faults.clear();
    this.counters = emptyStats();
  }

  handle(method: string, url: string, authorization: string | undefined, body: string): Reply | Promise<Reply> {
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    try {
      if (method === 'POST') {
        const send = SEND_PATH.exec(path);
        if (send) return this.send(decodeURIComponent(send[1]), authorization, body);
        if (path === '/token') return this.grant(body);
      }
      if (path.startsWith('/_emulator/')) return this.admin(method, path, q === -1 ? '' : url.slice(q + 1), body);
      return fcmErrors.notFound(path);
    } catch (err) {
      return json(500, { error: err instanceof Error ? err.message : String(err) });
    }
  }

  /** The OAuth2 JWT-bearer grant of https://oauth2.googleapis.com/token. */
  private grant(body: string): Reply {
    this.counters.tokenRequests++;
    const form = new URLSearchParams(body);
    const grantType = form.get('grant_type');
    if (grantType !== JWT_BEARER_GRANT) return oauthError(400, 'unsupported_grant_type', `Invalid grant_type: ${grantType ?? ''}`);
    const assertion = form.get('assertion');
    if (!assertion) return oauthError(400, 'invalid_request', 'Missing required parameter: assertion');

    const parsed = parseAssertion(assertion);
    if ('error' in parsed) return oauthError(400, parsed.error, parsed.description);
    const { claims } = parsed;
    const account = this.accounts.get(claims.iss);
    if (!account && !this.options.open) return oauthError(400, 'invalid_grant', 'Invalid grant: account not found');
    if (account && !verifySignature(parsed, account.publicKey)) return oauthError(400, 'invalid_grant', 'Invalid JWT Signature.');
    const claimsError = checkClaims(claims, this.audiences, Math.floor(this.now() / 1000));
    if (claimsError) return oauthError(400, claimsError.error, claimsError.description);

    const fault = this.faults.forGrant(account?.projectId, claims.iss);
    if (fault?.kind === 'revoked') return oauthError(400, 'invalid_grant', 'Invalid JWT Signature.');
    if (fault?.kind === 'token_unavailable') {
      const retryAfter = fault.retryAfter ? { 'retry-after': fault.retryAfter } : undefined;
      return json(503, { error: 'temporarily_unavailable', error_description: 'The service is currently unavailable.' }, retryAfter);
    }

    const accessToken = `ya29.emulator.${randomBytes(24).toString('base64url')}`;
    const expiresIn = this.tokenExpiresInS;
    this.tokens.set(accessToken, { clientEmail: claims.iss, projectId: account?.projectId, expiresAt: this.now() + expiresIn * 1000 });
    this.counters.tokensIssued++;
    return json(200, { access_token: accessToken, expires_in: expiresIn, token_type: 'Bearer' });
  }

  /** POST /v1/projects/{project}/messages:send */
  private send(project: string, authorization: string | undefined, body: string): Reply | Promise<Reply> {
    this.counters.sendRequests++;
    const grant = this.authorize(project, authorization);
    if ('status' in grant) return this.reject(grant);

    let request: unknown;
    try {
      request = JSON.parse(body);
    } catch {
      return this.reject(fcmErrors.invalidArgument('Invalid JSON payload received.'));
    }
    const invalid = validateSendRequest(request);
    if (invalid) return this.reject(invalid);
    const { message, validate_only: validateOnly } = request as { message: Record<string, unknown>; validate_only?: boolean };
    const token = typeof message.token === 'string' ? message.token : undefined;

    const fault = this.faults.forSend(project, token);
    if (fault && fault.kind !== 'slow') return this.reject(faultReply(fault));
    const reply = validateOnly ? this.validate(project, grant.clientEmail, message, token) : this.accept(project, grant.clientEmail, message, token);
    if (!fault) return reply;
    return new Promise((resolve) => setTimeout(resolve, fault.delayMs, reply).unref());
  }

  private authorize(project: string, authorization: string | undefined): IssuedToken | Reply {
    if (!authorization?.startsWith('Bearer ')) return fcmErrors.unauthenticated('CREDENTIALS_MISSING');
    const issued = this.tokens.get(authorization.slice(7));
    if (!issued) return fcmErrors.unauthenticated('ACCESS_TOKEN_TYPE_UNSUPPORTED');
    if (issued.expiresAt <= this.now()) return fcmErrors.unauthenticated('ACCESS_TOKEN_EXPIRED');
    if (issued.projectId !== undefined && issued.projectId !== project) return fcmErrors.permissionDenied(project);
    return issued;
  }

  private accept(project: string, clientEmail: string, message: Record<string, unknown>, token: string | undefined): Reply {
    const name = `projects/${project}/messages/${++this.messageSeq}`;
    this.record(this.records, { name, project, clientEmail, message, token });
    this.counters.accepted++;
    return json(200, { name });
  }

  /** FCM answers a dry run with this fixed name. */
  private validate(project: string, clientEmail: string, message: Record<string, unknown>, token: string | undefined): Reply {
    const name = `projects/${project}/messages/fake_message_id`;
    this.record(this.validations, { name, project, clientEmail, message, token });
    this.counters.validated++;
    return json(200, { name });
  }

  private record(into: ReceivedMessage[], r: { name: string; project: string; clientEmail: string; message: Record<string, unknown>; token: string | undefined }) {
    if (into.length >= this.maxRecords) into.splice(0, Math.ceil(this.maxRecords / 2));
    into.push({
      name: r.name,
      project: r.project,
      token: r.token,
      topic: typeof r.message.topic === 'string' ? r.message.topic : undefined,
      condition: typeof r.message.condition === 'string' ? r.message.condition : undefined,
      clientEmail: r.clientEmail,
      message: r.message,
      receivedAt: this.now(),
    });
  }

  private reject(reply: Reply): Reply {
    this.counters.rejected++;
    return reply;
  }

  private admin(method: string, path: string, query: string, body: string): Reply {
    const route = `${method} ${path}`;
    try {
      switch (route) {
        case 'GET /_emulator/messages': {
          const params = new URLSearchParams(query);
          return json(200, { messages: this.received({ token: params.get('token') ?? undefined, project: params.get('project') ?? undefined }) });
        }
        case 'DELETE /_emulator/messages':
          this.clearReceived();
          return noContent;
        case 'GET /_emulator/validated': {
          const params = new URLSearchParams(query);
          return json(200, { messages: this.validated({ token: params.get('token') ?? undefined, project: params.get('project') ?? undefined }) });
        }
        case 'DELETE /_emulator/validated':
          this.clearValidated();
          return noContent;
        case 'GET /_emulator/faults':
          return json(200, { faults: this.faults.list() });
        case 'POST /_emulator/faults': {
          const fault = parseFault(JSON.parse(body));
          this.faults.add(fault);
          return json(201, { fault });
        }
        case 'DELETE /_emulator/faults':
          this.faults.clear();
          return noContent;
        case 'POST /_emulator/service-accounts':
          this.addServiceAccount(JSON.parse(body));
          return json(201, {});
        case 'GET /_emulator/stats':
          return json(200, this.stats());
        case 'POST /_emulator/reset':
          this.reset();
          return noContent;
        default:
          return json(404, { error: `No emulator route ${route}` });
      }
    } catch (err) {
      return json(400, { error: err instanceof Error ? err.message : String(err) });
    }
  }
}

function faultReply(fault: ActiveFault): Reply {
  switch (fault.kind) {
    case 'unregistered':
      return fcmErrors.unregistered();
    case 'invalid':
      return fcmErrors.invalidToken();
    case 'mismatch':
      return fcmErrors.senderMismatch();
    case 'unavailable':
      return fcmErrors.unavailable(fault.retryAfter);
    case 'ratelimit':
      return fcmErrors.quotaExceeded(fault.retryAfter ?? '1');
    case 'internal':
      return fcmErrors.internal();
    case 'thirdparty':
      return fcmErrors.thirdPartyAuth();
    case 'revoked':
      return fcmErrors.unauthenticated('ACCESS_TOKEN_EXPIRED');
    case 'slow':
    case 'token_unavailable':
      throw new Error(`${fault.kind} is not a send error`);
  }
}

function emptyStats(): EmulatorStats {
  return { connections: 0, tokenRequests: 0, tokensIssued: 0, sendRequests: 0, accepted: 0, validated: 0, rejected: 0 };
}

function select(records: ReceivedMessage[], { token, project }: ReceivedFilter): ReceivedMessage[] {
  if (token === undefined && project === undefined) return records.slice();
  return records.filter((r) => (token === undefined || r.token === token) && (project === undefined || r.project === project));
}

/** Starts the emulator: HTTP/1.1 and h2c (prior knowledge) on one port. */
export async function startFcmEmulator(options: FcmEmulatorOptions = {}): Promise<FcmEmulator> {
  const state = new EmulatorState(options);
  const sockets = new Set<net.Socket>();
  const h1Sockets = new Set<net.Socket>();
  const sessions = new Set<http2.ServerHttp2Session>();

  const h2 = http2.createServer(options.maxConcurrentStreams ? { settings: { maxConcurrentStreams: options.maxConcurrentStreams } } : {});
  h2.on('stream', (stream, headers) => {
    let body = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => (body += chunk));
    stream.on('error', () => {});
    stream.on('end', () => {
      const reply = state.handle(String(headers[':method']), String(headers[':path']), headers.authorization, body);
      if (reply instanceof Promise) void reply.then((r) => writeH2(stream, r));
      else writeH2(stream, reply);
    });
  });
  h2.on('session', (session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
    session.on('error', () => {});
  });
  h2.on('sessionError', () => {});

  const h1 = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const reply = state.handle(req.method ?? 'GET', req.url ?? '/', req.headers.authorization, body);
      if (reply instanceof Promise) void reply.then((r) => writeH1(res, r));
      else writeH1(res, reply);
    });
  });

  // Node's http2 server only falls back to HTTP/1.1 after TLS ALPN; on a cleartext port the protocol
  // is told apart by the connection preface (`PRI * HTTP/2.0`), then the socket is handed over.
  const server = net.createServer({ noDelay: true }, (socket) => {
    state.countConnection();
    sockets.add(socket);
    socket.on('close', () => {
      sockets.delete(socket);
      h1Sockets.delete(socket);
    });
    socket.on('error', () => {});
    const chunks: Buffer[] = [];
    let length = 0;
    const sniff = (chunk: Buffer) => {
      chunks.push(chunk);
      length += chunk.length;
      if (length < 3) return;
      socket.off('data', sniff);
      socket.pause();
      const head = chunks.length === 1 ? chunk : Buffer.concat(chunks);
      socket.unshift(head);
      if (head.toString('latin1', 0, 3) === 'PRI') {
        h2.emit('connection', socket);
      } else {
        h1Sockets.add(socket);
        h1.emit('connection', socket);
      }
      process.nextTick(() => socket.resume());
    };
    socket.on('data', sniff);
  });

  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as net.AddressInfo).port;
  const hostPort = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  state.audiences.add(`http://${hostPort}/token`);

  return {
    url: `http://${hostPort}`,
    host: hostPort,
    port,
    addServiceAccount: (account) => state.addServiceAccount(account),
    received: (filter) => state.received(filter),
    validated: (filter) => state.validated(filter),
    stats: () => state.stats(),
    setFault: (fault) => state.setFault(fault),
    clearFaults: () => state.clearFaults(),
    setTokenExpiresIn: (seconds) => state.setTokenExpiresIn(seconds),
    reset: () => state.reset(),
    disconnect(mode = 'destroy') {
      for (const session of sessions) {
        if (mode === 'goaway') session.close();
        else session.destroy();
      }
      for (const socket of mode === 'goaway' ? h1Sockets : sockets) socket.destroy();
    },
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const session of sessions) session.destroy();
        for (const socket of sockets) socket.destroy();
      });
    },
  };
}

function writeH2(stream: http2.ServerHttp2Stream, reply: Reply): void {
  if (stream.destroyed || stream.closed) return;
  stream.respond({ ':status': reply.status, ...reply.headers }, { endStream: reply.body === undefined });
  if (reply.body !== undefined) stream.end(reply.body);
}

function writeH1(res: http.ServerResponse, reply: Reply): void {
  if (res.destroyed) return;
  res.writeHead(reply.status, reply.headers);
  res.end(reply.body);
}

