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
  /**
   * A fixed access token instead of the OAuth exchange: only for the worker's warm-up, whose
   * loopback stand-in for FCM issues none (`startLoopbackFcm`).
   */
  fixedAccessToken?: string;
}

/** Where the client's access tokens come from (`AccessTokenSource`: the service account's OAuth exchange). */
type AccessTokens = Pick<AccessTokenSource, 'get' | 'refresh' | 'invalidate'>;

const fixedToken = (token: string): AccessTokens => ({ get: () => Promise.resolve(token), refresh: () => Promise.resolve(token), invalidate: () => undefined });

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
  /** Request bodies already made for this batch's contents, without their token. */
  shapes?: BodyShape[];
}

/**
 * A request body with its token left out: `prefix + JSON.stringify(token) + suffix` is what
 * `JSON.stringify` makes of the whole message. A bulk send's messages differ in their token only, so
 * each of its contents is built and serialized once per batch (and per second: APNs' expiration is in
 * whole seconds) rather than once per device.
 */
interface BodyShape {
  of: PushMessage;
  second: number;
  suffix: string;
  /** With a delivery id: the suffix is `suffix + JSON of the id + tail`. */
  tail?: string;
}

/** Stands for a message's delivery id while its shape is serialized (a delivery id is a UUID: never this). */
const DELIVERY_ID_SLOT = '\u0000herald-delivery-id\u0000';
const DELIVERY_ID_SLOT_JSON = JSON.stringify(DELIVERY_ID_SLOT);

/** Every body starts so: the token is the first field of the message (`toFcmMessage`). */
const BODY_PREFIX = '{"message":{"token":';
/** Contents remembered per batch: a bulk send has one per platform and distinct variable set. */
const SHAPES_PER_BATCH = 8;

/** A message's request body, as FCM's v1 API takes it (`validate_only` for a dry run). */
function serialize(message: PushMessage, nowMs: number, validateOnly: boolean): string {
  const fcmMessage = toFcmMessage(message, nowMs);
  return JSON.stringify(validateOnly ? { message: fcmMessage, validate_only: true } : { message: fcmMessage });
}

const sameContent = (a: PushMessage, b: PushMessage) =>
  a.title === b.title &&
  a.body === b.body &&
  a.imageUrl === b.imageUrl &&
  a.data === b.data &&
  a.platform === b.platform &&
  a.options === b.options &&
  a.dataOnly === b.dataOnly &&
  a.collapseId === b.collapseId &&
  (a.deliveryId === undefined) === (b.deliveryId === undefined);

/** Herald's FCM HTTP v1 client: one HTTP/2 session and one access token per set of credentials. */
export class FcmProvider implements PushProvider {
  private readonly tokens: AccessTokens;
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
    this.tokens =
      options.fixedAccessToken !== undefined
        ? fixedToken(options.fixedAccessToken)
        : new AccessTokenSource(credentials, {
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

  async prepare(): Promise<void> {
    if (this.closed) return;
    await Promise.all([this.http.open(), this.tokens.get().catch(() => undefined)]);
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

  private async sendOne(message: PushMessage, batch: Batch): Promise<TokenResult> {
    const { headers, accessToken } = batch;
    let response;
    try {
      response = await this.http.request(headers, this.body(message, batch));
    } catch (err) {
      // A request that never left, or that FCM refused unread, was not delivered; any other was perhaps.
      if (err instanceof TransportError) return err.refused || err.unsent ? { status: 'retryable', error: err.message } : { status: 'retryable', error: err.message, ambiguous: true };
      return { status: 'failed', error: `FCM request not sent: ${(err as Error).message}` };
    }
    const result = toTokenResult(response.status, response.headers, response.body, this.now());
    // FCM no longer takes this token (expired early, revoked): the next send asks for a new one.
    if (response.status === 401 && result.status === 'auth_failed') this.tokens.invalidate(accessToken);
    return result;
  }

  /** The message's request body: its content's serialized shape (made once per batch) around its token. */
  private body(message: PushMessage, batch: Batch): string {
    const now = this.now();
    // A batch of one (a one-user send) has nothing to share.
    if (batch.messages.length === 1) return serialize(message, now, batch.validateOnly);
    const second = Math.floor(now / 1000);
    const shapes = (batch.shapes ??= []);
    let shape = shapes.find((s) => s.second === second && sameContent(s.of, message));
    if (!shape) {
      const withId = message.deliveryId !== undefined;
      const text = serialize({ ...message, token: '', deliveryId: withId ? DELIVERY_ID_SLOT : undefined }, now, batch.validateOnly);
      // Never otherwise; but should the token ever not come first, the message is serialized whole.
      if (!text.startsWith(`${BODY_PREFIX}""`)) return serialize(message, now, batch.validateOnly);
      const suffix = text.slice(BODY_PREFIX.length + 2);
      const parts = suffix.split(DELIVERY_ID_SLOT_JSON);
      if (withId && parts.length !== 2) return serialize(message, now, batch.validateOnly);
      shape = withId ? { of: message, second, suffix: parts[0], tail: parts[1] } : { of: message, second, suffix };
      if (shapes.length >= SHAPES_PER_BATCH) shapes.shift();
      shapes.push(shape);
    }
    const head = BODY_PREFIX + JSON.stringify(message.token) + shape.suffix;
    return shape.tail === undefined ? head : head + JSON.stringify(message.deliveryId) + shape.tail;
  }
}

export function createFcmProvider(credentials: FcmCredentials, options: FcmProviderOptions = {}): FcmProvider {
  return new FcmProvider(credentials, options);
}

function tokenFailure(err: unknown): TokenFailure {
  if (err instanceof AccessTokenError) return err.result;
  throw err;
}
