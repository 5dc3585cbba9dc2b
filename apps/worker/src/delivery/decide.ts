import type { TokenResult } from '@herald/providers';

/**
 * Every delivery decision of Herald, in one place, over the provider's structured results (the
 * table in docs/delivery.md#4-providers-and-outcomes):
 * - `sent`: done.
 * - `invalid_token`: the token is dead; prune the device, no failover.
 * - `sender_mismatch`: the token belongs to another Firebase project; try the next provider, and
 *   prune only when no provider is left.
 * - `auth_failed`: our credentials were rejected; fail over (and skip this provider for the rest of the job).
 * - `retryable`: try again later on the same provider with exponential backoff and jitter, at least
 *   `retryAfterMs`; once attempts are exhausted, fail over.
 * - `failed`: a permanent error of this message.
 *
 * A dry run (FCM's `validate_only`) decides the same way, except that nothing was delivered and
 * nothing is removed: an accepted message is `validated`, and a dead token is only its delivery's
 * error (the device stays, as a dry run must not change anything).
 */

export interface Attempt {
  deliveryId: string;
  deviceId: string;
  /** Transient attempts already made on the current provider. */
  attempts: number;
}

export interface RetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Random number in [0, 1), injectable for tests. */
  random?: () => number;
}

export function backoffDelay(attempt: number, policy: RetryPolicy, retryAfterMs = 0): number {
  const random = policy.random ?? Math.random;
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  const jittered = exponential * (0.8 + 0.4 * random());
  return Math.round(Math.max(retryAfterMs, jittered));
}

/** What to do with one message, from its provider's answer. */
export type Decision =
  | { kind: 'sent'; providerMessageId: string }
  /** Dry runs: FCM validated the message. */
  | { kind: 'validated' }
  /** The token is dead: the delivery fails and its device is deleted. */
  | { kind: 'prune'; error: string }
  /** To the next provider, with a fresh attempt count. */
  | { kind: 'failover'; error: string }
  /** `possiblyDelivered`: the attempt's fate is unknown (a timeout, a 5xx): the device may show it already. */
  | { kind: 'retry'; attempts: number; delayMs: number; error: string; possiblyDelivered: boolean }
  | { kind: 'fail'; error: string };

/** The provider rejected our credentials: do not use it again in this job. */
export const providerDown = (result: TokenResult): boolean => result.status === 'auth_failed';

/** The decision for one message (`attempt`) from its result. */
export function decide(attempt: Attempt, result: TokenResult, hasNextProvider: boolean, policy: RetryPolicy, dryRun = false): Decision {
  // A dry run removes nothing: a dead token is only its delivery's error.
  const dead = (error: string): Decision => (dryRun ? { kind: 'fail', error } : { kind: 'prune', error });
  switch (result.status) {
    case 'sent':
      return dryRun ? { kind: 'validated' } : { kind: 'sent', providerMessageId: result.providerMessageId };
    case 'invalid_token':
      return dead(result.error);
    case 'sender_mismatch':
      return hasNextProvider ? { kind: 'failover', error: result.error } : dead(result.error);
    case 'auth_failed':
      return hasNextProvider ? { kind: 'failover', error: result.error } : { kind: 'fail', error: result.error };
    case 'retryable': {
      const attempts = attempt.attempts + 1;
      if (attempts < policy.maxAttempts) return { kind: 'retry', attempts, delayMs: backoffDelay(attempts, policy, result.retryAfterMs), error: result.error, possiblyDelivered: result.ambiguous === true };
      return hasNextProvider ? { kind: 'failover', error: result.error } : { kind: 'fail', error: result.error };
    }
    case 'failed':
      return { kind: 'fail', error: result.error };
  }
}
