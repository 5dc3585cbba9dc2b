import http2 from 'node:http2';
import type { FcmLogger } from './logger';

const { NGHTTP2_CANCEL, NGHTTP2_REFUSED_STREAM } = http2.constants;

export interface Http2Response {
  status: number;
  headers: http2.IncomingHttpHeaders;
  body: string;
}

/** The request got no answer: timeout, connection lost, stream reset. `refused`: the server provably never saw it. */
export class TransportError extends Error {
  constructor(
    message: string,
    /** Refused unprocessed by the server (GOAWAY, REFUSED_STREAM): not delivered. */
    readonly refused = false,
    /** Never sent (the client was closed): not delivered. */
    readonly unsent = false,
  ) {
    super(message);
    this.name = 'TransportError';
  }
}

export interface Http2ClientOptions {
  /** `https://fcm.googleapis.com`, or `http://host:port` for h2c with prior knowledge. */
  origin: string;
  maxConcurrentStreams: number;
  timeoutMs: number;
  logger: FcmLogger;
}

interface InFlight {
  deadline: number;
  expire(): void;
}

/**
 * One long-lived HTTP/2 session to one origin, replaced when it dies or is told to go away, with at
 * most `maxConcurrentStreams` requests in flight (fewer if the server's SETTINGS say so); the rest wait in order.
 */
export class Http2Client {
  private session?: http2.ClientHttp2Session;
  private limit: number;
  private active = 0;
  private queue: Array<(() => void) | undefined> = [];
  private head = 0;
  private closed = false;
  private lastResponseAt = 0;
  private onIdle?: () => void;
  /** Deadlines are checked by one sweeping timer rather than a timer per stream: cheaper at thousands of requests a second. */
  private readonly inFlight = new Set<InFlight>();
  private sweeper?: NodeJS.Timeout;
  private opening?: { session: http2.ClientHttp2Session; connected: Promise<void> };

  constructor(private readonly options: Http2ClientOptions) {
    this.limit = options.maxConcurrentStreams;
  }

  /** `headers` include `:method` and `:path`; they are not modified, so one object can serve many requests. */
  async request(headers: http2.OutgoingHttpHeaders, body: string): Promise<Http2Response> {
    if (this.closed) throw new TransportError('FCM client is closed', false, true);
    if (this.active < this.limit) this.active++;
    else await new Promise<void>((resolve) => this.queue.push(resolve));
    try {
      return await this.exchange(headers, body);
    } catch (err) {
      // A stream refused by GOAWAY or REFUSED_STREAM was never processed: sending it again on a fresh session is not a retry.
      if (err instanceof TransportError && err.refused && !this.closed) return await this.exchange(headers, body);
      throw err;
    } finally {
      this.release();
    }
  }

  /**
   * Opens the session ahead of the first request; resolves once it is connected (at once when it
   * is), or failed to: a failure is met again, and reported, by the next request.
   */
  open(): Promise<void> {
    if (this.closed) return Promise.resolve();
    let session: http2.ClientHttp2Session;
    try {
      session = this.connect();
    } catch {
      return Promise.resolve();
    }
    if (!session.connecting) return Promise.resolve();
    // Callers while it connects share one wait.
    if (this.opening?.session !== session) {
      const connected = new Promise<void>((resolve) => {
        const done = () => {
          session.off('connect', done).off('close', done).off('error', done);
          if (this.opening?.session === session) this.opening = undefined;
          resolve();
        };
        session.once('connect', done).once('close', done).once('error', done);
      });
      this.opening = { session, connected };
    }
    return this.opening.connected;
  }

  /** Lets queued and in-flight requests finish, then closes the session. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.active > 0) await new Promise<void>((resolve) => (this.onIdle = resolve));
    const session = this.session;
    this.session = undefined;
    if (session && !session.destroyed) await new Promise<void>((resolve) => session.close(() => resolve()));
  }

  private release(): void {
    this.active--;
    this.drain();
    if (this.active === 0) this.onIdle?.();
  }

  private drain(): void {
    while (this.active < this.limit && this.head < this.queue.length) {
      const next = this.queue[this.head]!;
      this.queue[this.head++] = undefined;
      this.active++;
      next();
    }
    if (this.head > 0 && this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
    }
  }

  private exchange(headers: http2.OutgoingHttpHeaders, body: string): Promise<Http2Response> {
    return new Promise((resolve, reject) => {
      let session: http2.ClientHttp2Session;
      let stream: http2.ClientHttp2Stream;
      try {
        session = this.connect();
        stream = session.request(headers);
      } catch (err) {
        // ERR_HTTP2_GOAWAY_SESSION and friends: the session went away before its events said so.
        this.forget(this.session);
        reject(new TransportError(`FCM connection unusable: ${(err as Error).message}`, !this.closed, true));
        return;
      }
      const exchange = new Exchange(this.hooks, session, stream, Date.now() + this.options.timeoutMs, resolve, reject);
      (stream as ExchangeStream)[kExchange] = exchange;
      this.track(exchange);
      stream.on('response', onResponse).on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
      stream.end(body);
    });
  }

  /** What an exchange tells its client (the handlers below are shared by every stream). */
  private readonly hooks: ExchangeHooks = {
    answered: () => {
      this.lastResponseAt = Date.now();
    },
    settled: (exchange) => this.inFlight.delete(exchange),
    expired: (session) => this.checkSession(session),
    timeoutMs: () => this.options.timeoutMs,
  };

  private track(pending: InFlight): void {
    this.inFlight.add(pending);
    if (this.sweeper) return;
    const every = Math.max(5, Math.min(1000, Math.floor(this.options.timeoutMs / 10)));
    this.sweeper = setInterval(() => {
      const now = Date.now();
      for (const p of this.inFlight) {
        if (p.deadline > now) continue;
        this.inFlight.delete(p);
        p.expire();
      }
      if (this.inFlight.size === 0) {
        clearInterval(this.sweeper);
        this.sweeper = undefined;
      }
    }, every);
    this.sweeper.unref();
  }

  /**
   * After a timeout: if nothing at all was answered on this session for a whole timeout, assume it
   * is dead (a half-open TCP connection never errors by itself) and let the next request open a new one.
   */
  private checkSession(session: http2.ClientHttp2Session): void {
    if (this.session !== session || Date.now() - this.lastResponseAt < this.options.timeoutMs) return;
    this.options.logger.warn({ origin: this.options.origin }, 'FCM HTTP/2 session unresponsive, reconnecting');
    this.forget(session);
    session.destroy();
  }

  private connect(): http2.ClientHttp2Session {
    const current = this.session;
    if (current && !current.closed && !current.destroyed) return current;
    if (this.closed) throw new Error('FCM client is closed');

    const { origin, maxConcurrentStreams, logger } = this.options;
    // Until the server's SETTINGS arrive, Node would assume it allows 100 streams.
    const session = http2.connect(origin, { peerMaxConcurrentStreams: maxConcurrentStreams });
    session.on('remoteSettings', (settings) => {
      this.limit = Math.min(maxConcurrentStreams, settings.maxConcurrentStreams ?? Infinity);
      this.drain();
    });
    session.on('goaway', (errorCode, lastStreamID) => {
      logger.info({ origin, errorCode, lastStreamID }, 'FCM HTTP/2 session told to go away, reconnecting');
      this.forget(session);
    });
    session.on('error', (err: Error & { code?: string }) => {
      logger.warn({ origin, code: err.code, error: err.message }, 'FCM HTTP/2 session error');
      this.forget(session);
    });
    session.on('close', () => this.forget(session));
    this.session = session;
    this.limit = maxConcurrentStreams;
    this.lastResponseAt = Date.now();
    return session;
  }

  private forget(session: http2.ClientHttp2Session | undefined): void {
    if (session && this.session === session) this.session = undefined;
  }
}

interface ExchangeHooks {
  /** A response arrived (the session is alive). */
  answered(): void;
  /** Stops watching the exchange's deadline; false if it had already stopped (answered, or timed out). */
  settled(exchange: Exchange): boolean;
  expired(session: http2.ClientHttp2Session): void;
  timeoutMs(): number;
}

const kExchange = Symbol('herald.http2.exchange');
type ExchangeStream = http2.ClientHttp2Stream & { [kExchange]: Exchange };

/**
 * One request's state, which its stream's events reach through the shared handlers below: a request
 * costs one small object rather than a closure per event, at thousands of requests a second. The body
 * is kept as the Buffers it arrives in (usually one) and decoded once.
 */
class Exchange implements InFlight {
  status = 0;
  headers: http2.IncomingHttpHeaders = {};
  chunks: Buffer | Buffer[] | undefined = undefined;
  timedOut = false;
  error: Error | undefined = undefined;

  constructor(
    readonly hooks: ExchangeHooks,
    readonly session: http2.ClientHttp2Session,
    readonly stream: http2.ClientHttp2Stream,
    readonly deadline: number,
    readonly resolve: (response: Http2Response) => void,
    readonly reject: (err: Error) => void,
  ) {}

  expire(): void {
    this.timedOut = true;
    this.stream.close(NGHTTP2_CANCEL);
    this.hooks.expired(this.session);
  }

  body(): string {
    const { chunks } = this;
    if (chunks === undefined) return '';
    return (Array.isArray(chunks) ? Buffer.concat(chunks) : chunks).toString('utf8');
  }
}

function onResponse(this: ExchangeStream, headers: http2.IncomingHttpHeaders & http2.IncomingHttpStatusHeader): void {
  const x = this[kExchange];
  x.headers = headers;
  x.status = headers[':status'] ?? 0;
  x.hooks.answered();
}

function onData(this: ExchangeStream, chunk: Buffer): void {
  const x = this[kExchange];
  if (x.chunks === undefined) x.chunks = chunk;
  else if (Array.isArray(x.chunks)) x.chunks.push(chunk);
  else x.chunks = [x.chunks, chunk];
}

function onEnd(this: ExchangeStream): void {
  const x = this[kExchange];
  if (!x.status) return;
  x.hooks.settled(x);
  x.resolve({ status: x.status, headers: x.headers, body: x.body() });
}

function onError(this: ExchangeStream, err: Error): void {
  this[kExchange].error = err;
}

function onClose(this: ExchangeStream): void {
  const x = this[kExchange];
  if (x.timedOut) return x.reject(new TransportError(`FCM request timed out after ${x.hooks.timeoutMs()} ms`));
  if (!x.hooks.settled(x)) return; // answered on 'end'
  const refused = this.rstCode === NGHTTP2_REFUSED_STREAM;
  const reason = x.error ? x.error.message : `stream closed with code ${this.rstCode}`;
  x.reject(new TransportError(`FCM connection lost: ${reason}`, refused));
}
