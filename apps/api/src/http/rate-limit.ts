import type { Request, RequestHandler, Response } from 'express';
import { ipKeyGenerator, rateLimit, type Options as RateLimitOptions } from 'express-rate-limit';
import { RedisStore, type RedisReply } from 'rate-limit-redis';
import type Redis from 'ioredis';
import { AppError } from '@herald/core';
import { credentialOf, type Caller } from './caller';

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

export interface LimiterOptions {
  /** Distinguishes this limiter's counters in Redis. */
  name: string;
  /** Requests allowed per window. */
  limit: number;
  /** The bucket a request counts against. */
  key: (req: Request) => string | Promise<string>;
  /** The window, a minute unless said otherwise. */
  windowMs?: number;
}

/**
 * Fixed-window limits shared by every API instance through Redis (docs/api.md#rate-limits). A 429 leaves through
 * the error middleware with the error body of docs/api.md#errors, `Retry-After` and the IETF `RateLimit` headers.
 */
export function createLimiterFactory(redis: Redis, prefix: string) {
  return ({ name, limit, key, windowMs = 60_000 }: LimiterOptions): RequestHandler =>
    rateLimit({
      windowMs,
      limit,
      standardHeaders: 'draft-8',
      legacyHeaders: false,
      identifier: name,
      keyGenerator: key,
      store: new RecoveringRedisStore({
        prefix: `${prefix}:rl:${name}:`,
        sendCommand: (...args: string[]) => redis.call(args[0], ...args.slice(1)) as Promise<RedisReply>,
      }),
      handler: (_req, res, next) => {
        next(new AppError(429, 'Too many requests, please try again later', undefined, { 'Retry-After': String(res.getHeader('Retry-After') ?? Math.ceil(windowMs / 1000)) }));
      },
      // A Redis outage must not open the gates silently: the error becomes a 503.
      passOnStoreError: false,
      validate: { trustProxy: false, xForwardedForHeader: false },
    });
}

export type LimiterFactory = ReturnType<typeof createLimiterFactory>;

/** Runs a limiter as a promise: resolved when the request may go on, rejected with its 429 (or 503). */
export const applyLimit = (limiter: RequestHandler, req: Request, res: Response) =>
  new Promise<void>((resolve, reject) => {
    Promise.resolve(limiter(req, res, (err?: unknown) => (err ? reject(err) : resolve()))).catch(reject);
  });

/** Several limits on one route, in order: the request counts against each until one refuses it. */
export const allLimits =
  (...limiters: RequestHandler[]): RequestHandler =>
  async (req, res, next) => {
    try {
      for (const limiter of limiters) await applyLimit(limiter, req, res);
      next();
    } catch (err) {
      next(err);
    }
  };

/**
 * A limit on something known only inside a handler, e.g. a project once the caller's access to it
 * is checked (counting before would let a stranger use up another project's allowance), or the
 * address an invite is for. `check(req, res, subject)` counts one request against `subject`.
 */
export function subjectLimit(factory: LimiterFactory, options: Omit<LimiterOptions, 'key'>) {
  const subjects = new WeakMap<Request, string>();
  const limiter = factory({ ...options, key: (req) => subjects.get(req) ?? '' });
  return (req: Request, res: Response, subject: string) => {
    subjects.set(req, subject);
    return applyLimit(limiter, req, res);
  };
}

export const clientIp = (req: Request) => ipKeyGenerator(req.ip ?? 'unknown');

/**
 * Per credential: the API key, or the user behind the JWT. The route runtime sets `credential` when
 * it limits before authentication has finished (`Authenticator.credentialHint`), else `caller`.
 */
export const perCredential = (req: Request) => {
  const locals = req.res?.locals;
  const credential = (locals?.credential as string | undefined) ?? (locals?.caller ? credentialOf(locals.caller as Caller) : undefined);
  return credential ?? `ip:${clientIp(req)}`;
};

/** The e-mail address in the body, lowercased, or '' (the body is not validated yet when limits run). */
export const bodyEmail = (req: Request) => (typeof req.body?.email === 'string' ? req.body.email.trim().toLowerCase() : '');

/** Per client IP and the e-mail address in the body (sign-in and reset: brute force against one account). */
export const perIpAndEmail = (req: Request) => `${clientIp(req)}:${bodyEmail(req)}`;
