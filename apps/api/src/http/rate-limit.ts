import type { Request, RequestHandler } from 'express';
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
  /** Requests allowed per minute. */
  limit: number;
  /** The bucket a request counts against. */
  key: (req: Request) => string;
}

/**
 * Fixed-window limits shared by every API instance through Redis (docs/api.md#rate-limits). A 429 leaves through
 * the error middleware with the contract's body, `Retry-After` and the IETF `RateLimit` headers.
 */
export function createLimiterFactory(redis: Redis, prefix: string) {
  return ({ name, limit, key }: LimiterOptions): RequestHandler =>
    rateLimit({
      windowMs: 60_000,
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
        next(new AppError(429, 'Too many requests, please try again later', undefined, { 'Retry-After': String(res.getHeader('Retry-After') ?? 60) }));
      },
      // A Redis outage must not open the gates silently: the error becomes a 503.
      passOnStoreError: false,
      validate: { trustProxy: false, xForwardedForHeader: false },
    });
}

export type LimiterFactory = ReturnType<typeof createLimiterFactory>;

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

/** Per client IP and the e-mail address in the body (sign-in and reset: brute force against one account). */
export const perIpAndEmail = (req: Request) => {
  const email = typeof req.body?.email === 'string' ? req.body.email.trim().toLowerCase() : '';
  return `${clientIp(req)}:${email}`;
};
