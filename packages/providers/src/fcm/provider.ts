import type { OutgoingHttpHeaders } from 'node:http2';
import type { CredentialCheck, FcmCredentials, PushMessage, PushProvider, SendOptions, TokenResult } from '../types';
import { AccessTokenError, AccessTokenSource, GOOGLE_TOKEN_URL, type TokenFailure } from './access-token';
import { Http2Client, TransportError } from './http2-client';
import { silentLogger, type FcmLogger } from './logger';
import { toFcmMessage } from './message';
import { toTokenResult } from './results';

export const FCM_ORIGIN = 'https://fcm.googleapis.com';

export interface FcmProviderOptions {
  /** `host:port` of an FCM emulator: OAuth and sends go there over plain HTTP (sends as h2c), on Google's paths. */
  emulatorHost?: string;
  /** Requests in flight on the HTTP/2 session (default 100). */
  maxConcurrentStreams?: number;
  /** Per request, token requests included (default 10 s). */
  requestTimeoutMs?: number;
  logger?: FcmLogger;
  /** Clock in ms, for the access-token cache and Retry-After dates. */
  now?: () => number;
}

interface Batch {
  messages: readonly PushMessage[];
  headers: OutgoingHttpHeaders;
  accessToken: string;
  results: TokenResult[];
  /** Index of the next message to send. */
  next: number;
  /** Results still missing. */
  pending: number;
  onResult?: (index: number, result: TokenResult) => void;
  validateOnly: boolean;
  done(results: TokenResult[]): void;
}

/** Herald's FCM HTTP v1 client: one HTTP/2 session and one access token per set of credentials. */
export class FcmProvider implements PushProvider {
  private readonly tokens: AccessTokenSource;
  private readonly http: Http2Client;
  private readonly sendPath: string;
  private readonly maxConcurrentStreams: number;
  private readonly now: () => number;
  private closed = false;
  private readonly sending = new Set<Promise<TokenResult[]>>();
  /** Sends under way, oldest first, each until its last message has been handed to a worker. */
  private readonly batches: Batch[] = [];
  private workers = 0;

  constructor(credentials: FcmCredentials, options: FcmProviderOptions = {}) {
    const { emulatorHost, maxConcurrentStreams = 100, requestTimeoutMs = 10_000, logger = silentLogger } = options;
    this.now = options.now ?? Date.now;
    this.tokens = new AccessTokenSource(credentials, {
      tokenUrl: emulatorHost ? `http://${emulatorHost}/token` : GOOGLE_TOKEN_URL,
      timeoutMs: requestTimeoutMs,
      now: this.now,
      logger,
    });
    this.http = new Http2Client({
      origin: emulatorHost ? `http://${emulatorHost}` : FCM_ORIGIN,
      maxConcurrentStreams,
      timeoutMs: requestTimeoutMs,
      logger,
    });
    this.maxConcurrentStreams = maxConcurrentStreams;
    this.sendPath = `/v1/projects/${encodeURIComponent(credentials.projectId)}/messages:send`;
  }

  async send(messages: readonly PushMessage[], onResult?: (index: number, result: TokenResult) => void, options: SendOptions = {}): Promise<TokenResult[]> {
    if (messages.length === 0) return [];
    if (this.closed) return messages.map(() => ({ status: 'retryable', error: 'FCM client is closed' }));
    const sending = this.sendAll(messages, onResult, options);
    this.sending.add(sending);
    try {
      return await sending;
    } finally {
      this.sending.delete(sending);
    }
  }

  async verifyCredentials(): Promise<CredentialCheck> {
    try {
      await this.tokens.refresh();
      return { ok: true };
    } catch (err) {
      return { ok: false, error: tokenFailure(err).error };
    }
  }

  /** Lets the sends under way finish, then closes the session. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.sending]);
    await this.http.close();
  }

  private async sendAll(messages: readonly PushMessage[], onResult: ((index: number, result: TokenResult) => void) | undefined, { validateOnly = false }: SendOptions): Promise<TokenResult[]> {
    let accessToken: string;
    try {
      accessToken = await this.tokens.get();
    } catch (err) {
      const result = tokenFailure(err);
      return messages.map(() => result);
    }
    const headers = { ':method': 'POST', ':path': this.sendPath, authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' };
    return new Promise((done) => {
      this.batches.push({ messages, headers, accessToken, results: new Array<TokenResult>(messages.length), next: 0, pending: messages.length, onResult, validateOnly, done });
      const wanted = Math.min(this.maxConcurrentStreams - this.workers, messages.length);
      for (let i = 0; i < wanted; i++) void this.work();
    });
  }

  /**
   * One of at most `maxConcurrentStreams` loops shared by every send: each takes the next message of
   * the oldest batch. A few hundred loops serve any number of concurrent batches, so nothing waits
   * in a queue per message.
   */
  private async work(): Promise<void> {
    this.workers++;
    let batch: Batch | undefined;
    while ((batch = this.batches[0])) {
      const i = batch.next++;
      if (batch.next === batch.messages.length) this.batches.shift();
      const result = await this.sendOne(batch.messages[i], batch);
      batch.results[i] = result;
      batch.onResult?.(i, result);
      if (--batch.pending === 0) batch.done(batch.results);
    }
    this.workers--;
  }

  private async sendOne(message: PushMessage, { headers, accessToken, validateOnly }: Batch): Promise<TokenResult> {
    let response;
    try {
      const fcmMessage = toFcmMessage(message, this.now());
      response = await this.http.request(headers, JSON.stringify(validateOnly ? { message: fcmMessage, validate_only: true } : { message: fcmMessage }));
    } catch (err) {
      if (err instanceof TransportError) return { status: 'retryable', error: err.message };
      return { status: 'failed', error: `FCM request not sent: ${(err as Error).message}` };
    }
    const result = toTokenResult(response.status, response.headers, response.body, this.now());
    // FCM no longer takes this token (expired early, revoked): the next send asks for a new one.
    if (response.status === 401 && result.status === 'auth_failed') this.tokens.invalidate(accessToken);
    return result;
  }
}

export function createFcmProvider(credentials: FcmCredentials, options: FcmProviderOptions = {}): FcmProvider {
  return new FcmProvider(credentials, options);
}

function tokenFailure(err: unknown): TokenFailure {
  if (err instanceof AccessTokenError) return err.result;
  throw err;
}
