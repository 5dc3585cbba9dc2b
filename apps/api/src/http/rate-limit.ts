import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { ipKeyGenerator, rateLimit, type Options as RateLimitOptions } from 'express-rate-limit';
import { RedisStore, type RedisReply } from 'rate-limit-redis';
import type Redis from 'ioredis';
import { AppError } from '@herald/core';

/**
 * rate-limit-redis loads its Lua scripts once, at start. If Redis is down then, the stored promise
 * stays rejected and every later request fails even after Redis is back. This store loads the
 * script again whenever the previous load failed, so the API recovers by itself.
 */
class RecoveringRedisStore extends RedisStore {
  override async init(options: RateLimitOptions) {
    this.windowMs = options.windowMs;
    this.incrementScriptSha = this.loadIncrementScript();
    this.getScriptSha = this.loadGetScript();
    // Failures surface (and are retried) on the first request instead.
    this.incrementScriptSha.catch(() => undefined);
    this.getScriptSha.catch(() => undefined);
  }

  override async increment(key: string) {
    const loaded = this.incrementScriptSha;
    this.incrementScriptSha = loaded.catch(() => this.loadIncrementScript());
    return super.increment(key);
  }
}

/**
 * rate-limit-redis's commands, with its scripts kept here: a script is loaded on one node, but on a
 * Redis Cluster its EVALSHA goes to the node of its key — and after a failover to a promoted replica
 * that never loaded it. A NOSCRIPT answer is met by EVAL of the same script (which caches it there).
 */
function scriptAwareCommands(redis: Redis) {
  const scripts = new Map<string, string>();
  return async (...args: string[]): Promise<RedisReply> => {
    const [command, ...rest] = args;
    if (command.toUpperCase() === 'SCRIPT' && rest[0]?.toUpperCase() === 'LOAD') scripts.set(createHash('sha1').update(rest[1]).digest('hex'), rest[1]);
    try {
      return (await redis.call(command, ...rest)) as RedisReply;
    } catch (err) {
      const script = command.toUpperCase() === 'EVALSHA' ? scripts.get(rest[0]) : undefined;
      if (!script || !(err as Error).message.startsWith('NOSCRIPT')) throw err;
      return (await redis.call('EVAL', script, ...rest.slice(1))) as RedisReply;
    }
  };
}

/** One limit: requests counted per subject (a credential, an address, a project…) in fixed windows. */
export interface Limit {
  /**
   * Counts the request against `subject`. Resolves when the request may go on (the `RateLimit`
   * headers set on its answer); rejects with the 429 (`Retry-After` included), or with a 503 when
   * Redis cannot count it.
   */
  count(req: Request, res: Response, subject: string): Promise<void>;
}

export interface LimitOptions {
  /** Names the limit's counters in Redis and its `RateLimit-Policy`. */
  name: string;
  /** Requests allowed per window. */
  limit: number;
  windowMs: number;
}

/** Runs an Express middleware as a promise: resolved when it calls `next()`, rejected with what it passes on. */
const runMiddleware = (middleware: RequestHandler, req: Request, res: Response) =>
  new Promise<void>((resolve, reject) => {
    Promise.resolve(middleware(req, res, (err?: unknown) => (err ? reject(err) : resolve()))).catch(reject);
  });

/**
 * A fixed-window limit shared by every API instance through Redis (docs/api.md#rate-limits), counted
 * by express-rate-limit: a 429 leaves through the error middleware with the error body of docs/api.md#errors,
 * `Retry-After` and the IETF `RateLimit` headers.
 */
export class RateLimit implements Limit {
  /** The subject each request is counted against, for the middleware's key generator. */
  private readonly subjects = new WeakMap<Request, string>();
  private readonly middleware: RequestHandler;

  constructor(redis: Redis, prefix: string, { name, limit, windowMs }: LimitOptions) {
    this.middleware = rateLimit({
      windowMs,
      limit,
      standardHeaders: 'draft-8',
      legacyHeaders: false,
      identifier: name,
      keyGenerator: (req) => this.subjects.get(req) ?? '',
      store: new RecoveringRedisStore({
        prefix: `${prefix}:rl:${name}:`,
        sendCommand: scriptAwareCommands(redis),
      }),
      handler: (_req, res, next) => {
        next(new AppError(429, 'Too many requests, please try again later', undefined, { 'Retry-After': String(res.getHeader('Retry-After') ?? Math.ceil(windowMs / 1000)) }));
      },
      // A Redis outage must not open the gates silently: the error becomes a 503.
      passOnStoreError: false,
      validate: { trustProxy: false, xForwardedForHeader: false },
    });
  }

  count(req: Request, res: Response, subject: string): Promise<void> {
    this.subjects.set(req, subject);
    return runMiddleware(this.middleware, req, res);
  }
}

const passed = Promise.resolve();

/** A limit switched off by its setting: counts nothing, costs nothing. */
export const NO_LIMIT: Limit = { count: () => passed };

/** The client's address as per-IP limits count it (an IPv6 address by its /56 network). */
export const clientIp = (req: Request) => ipKeyGenerator(req.ip ?? 'unknown');
