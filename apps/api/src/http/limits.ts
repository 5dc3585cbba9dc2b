import type Redis from 'ioredis';
import type { ApiConfig } from '@herald/config';
import { NO_LIMIT, RateLimit, type Limit } from './rate-limit';

const MINUTE = 60_000;
const HOUR = 3_600_000;

interface LimitSetting {
  /** Requests per window; 0 switches the limit off. */
  limit: number;
  windowMs?: number;
}

/**
 * Every rate limit of the API (docs/api.md#rate-limits, docs/limits.md), by the one name that its
 * Redis counters, its `RateLimit-Policy` header and the routes use. A route counts a request before
 * validation with its `rateLimit` (per credential or client IP), or names the limits its handler
 * counts with `ctx.limit(name, subject)` once the subject is known: a field of the validated body,
 * a project the caller was let into.
 */
export function createLimits(redis: Redis, prefix: string, settings: ApiConfig['rateLimits']) {
  const { invites } = settings;
  return catalogue(redis, prefix, {
    'register-device': { limit: settings.registerDevice },
    send: { limit: settings.send },
    'send-bulk': { limit: settings.sendBulk },
    'user-attributes': { limit: settings.userAttributes },
    'user-attributes-bulk': { limit: settings.userAttributesBulk },
    'audience-count': { limit: settings.audienceCount },
    events: { limit: settings.events },
    // All sends of a project together, whatever credential sends them, since per-credential limits
    // multiply with the project's keys. Off by default.
    'project-send': { limit: settings.projectSend },
    // Test events of a project: each is a request to a URL the project chose, made by a shared worker.
    'webhook-test': { limit: settings.webhookTest },
    signup: { limit: settings.signup },
    // Per (IP, e-mail) against guessing one account's password; per IP against one client trying a
    // few passwords on many accounts.
    signin: { limit: settings.auth },
    'signin-ip': { limit: settings.signinPerIp },
    'password-reset': { limit: settings.auth },
    // Password checks of an account that is signed in or proves itself otherwise (change-password,
    // accepting an invite into an existing account): one bucket per account (`accountSubject`).
    'password-check': { limit: settings.passwordCheck },
    // Every invite mail (a new invite or a resend), so that no account can turn invites into a mail cannon.
    'invite-project': { limit: invites.perProject, windowMs: HOUR },
    'invite-inviter': { limit: invites.perInviter, windowMs: HOUR },
    'invite-address': { limit: invites.perAddress, windowMs: HOUR },
  });
}

function catalogue<N extends string>(redis: Redis, prefix: string, settings: Record<N, LimitSetting>): Record<N, Limit> {
  const limits = {} as Record<N, Limit>;
  for (const [name, { limit, windowMs = MINUTE }] of Object.entries<LimitSetting>(settings)) {
    limits[name as N] = limit > 0 ? new RateLimit(redis, prefix, { name, limit, windowMs }) : NO_LIMIT;
  }
  return limits;
}

export type Limits = ReturnType<typeof createLimits>;
export type LimitName = keyof Limits;

/** The subject of `password-check`: the account, by its (lowercased) e-mail address. */
export const accountSubject = (email: string) => `account:${email}`;
