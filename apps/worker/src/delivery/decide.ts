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

export interface Decisions {
  sent: { deliveryId: string; providerMessageId: string }[];
  /** Dry runs: FCM validated the message. */
  validated: { deliveryId: string }[];
  prune: { deliveryId: string; deviceId: string; error: string }[];
  failover: { deliveryId: string; error: string }[];
  retry: { deliveryId: string; attempts: number; delayMs: number; error: string }[];
  fail: { deliveryId: string; error: string }[];
  /** The provider rejected our credentials: do not use it again in this job. */
  providerDown: boolean;
}

export function backoffDelay(attempt: number, policy: RetryPolicy, retryAfterMs = 0): number {
  const random = policy.random ?? Math.random;
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  const jittered = exponential * (0.8 + 0.4 * random());
  return Math.round(Math.max(retryAfterMs, jittered));
}

export function decide(batch: readonly Attempt[], results: readonly TokenResult[], hasNextProvider: boolean, policy: RetryPolicy, dryRun = false): Decisions {
  const d: Decisions = { sent: [], validated: [], prune: [], failover: [], retry: [], fail: [], providerDown: false };
  const prune = (a: Attempt, error: string) => (dryRun ? d.fail.push({ deliveryId: a.deliveryId, error }) : d.prune.push({ deliveryId: a.deliveryId, deviceId: a.deviceId, error }));
  batch.forEach((a, i) => {
    const r = results[i];
    switch (r.status) {
      case 'sent':
        if (dryRun) d.validated.push({ deliveryId: a.deliveryId });
        else d.sent.push({ deliveryId: a.deliveryId, providerMessageId: r.providerMessageId });
        break;
      case 'invalid_token':
        prune(a, r.error);
        break;
      case 'sender_mismatch':
        if (hasNextProvider) d.failover.push({ deliveryId: a.deliveryId, error: r.error });
        else prune(a, r.error);
        break;
      case 'auth_failed':
        d.providerDown = true;
        if (hasNextProvider) d.failover.push({ deliveryId: a.deliveryId, error: r.error });
        else d.fail.push({ deliveryId: a.deliveryId, error: r.error });
        break;
      case 'retryable': {
        const attempts = a.attempts + 1;
        if (attempts < policy.maxAttempts) d.retry.push({ deliveryId: a.deliveryId, attempts, delayMs: backoffDelay(attempts, policy, r.retryAfterMs), error: r.error });
        else if (hasNextProvider) d.failover.push({ deliveryId: a.deliveryId, error: r.error });
        else d.fail.push({ deliveryId: a.deliveryId, error: r.error });
        break;
      }
      case 'failed':
        d.fail.push({ deliveryId: a.deliveryId, error: r.error });
        break;
    }
  });
  return d;
}
