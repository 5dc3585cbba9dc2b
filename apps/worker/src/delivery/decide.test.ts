import type { TokenResult } from '@herald/providers';
import { backoffDelay, decide, providerDown, type Attempt, type RetryPolicy } from './decide';

const policy: RetryPolicy = { maxAttempts: 5, baseDelayMs: 1000, maxDelayMs: 60_000, random: () => 0.5 };
const attempt = (n: number, attempts = 0): Attempt => ({ deliveryId: `d${n}`, deviceId: `dev${n}`, attempts });

describe('decide', () => {
  const results: TokenResult[] = [
    { status: 'sent', providerMessageId: 'projects/p/messages/1' },
    { status: 'invalid_token', error: 'UNREGISTERED' },
    { status: 'sender_mismatch', error: 'SENDER_ID_MISMATCH' },
    { status: 'auth_failed', error: 'invalid_grant' },
    { status: 'retryable', error: 'UNAVAILABLE', retryAfterMs: 5000 },
    { status: 'failed', error: 'INVALID_ARGUMENT' },
  ];
  const all = (hasNextProvider: boolean, dryRun = false) => results.map((r, i) => decide(attempt(i), r, hasNextProvider, policy, dryRun));

  it('with another provider left, mismatches and credential failures fail over', () => {
    expect(all(true)).toEqual([
      { kind: 'sent', providerMessageId: 'projects/p/messages/1' },
      { kind: 'prune', error: 'UNREGISTERED' },
      { kind: 'failover', error: 'SENDER_ID_MISMATCH' },
      { kind: 'failover', error: 'invalid_grant' },
      { kind: 'retry', attempts: 1, delayMs: 5000, error: 'UNAVAILABLE', possiblyDelivered: false },
      { kind: 'fail', error: 'INVALID_ARGUMENT' },
    ]);
    // Only rejected credentials take the provider out of the job.
    expect(results.map(providerDown)).toEqual([false, false, false, true, false, false]);
  });

  it('on the last provider, a mismatched token is pruned and a credential failure fails', () => {
    expect(all(false).map((d) => d.kind)).toEqual(['sent', 'prune', 'prune', 'fail', 'retry', 'fail']);
  });

  it('a dry run: an accepted message is validated, a dead or foreign token only fails (nothing is pruned)', () => {
    expect(all(false, true)).toEqual([
      { kind: 'validated' },
      { kind: 'fail', error: 'UNREGISTERED' },
      { kind: 'fail', error: 'SENDER_ID_MISMATCH' },
      { kind: 'fail', error: 'invalid_grant' },
      { kind: 'retry', attempts: 1, delayMs: 5000, error: 'UNAVAILABLE', possiblyDelivered: false },
      { kind: 'fail', error: 'INVALID_ARGUMENT' },
    ]);
    // Failover and retries are decided as for a real send.
    expect(all(true, true).map((d) => d.kind)).toEqual(['validated', 'fail', 'failover', 'failover', 'retry', 'fail']);
  });

  it('exhausted retries fail over, or fail on the last provider', () => {
    const r: TokenResult = { status: 'retryable', error: 'INTERNAL' };
    expect(decide(attempt(0, 4), r, true, policy)).toEqual({ kind: 'failover', error: 'INTERNAL' });
    expect(decide(attempt(0, 4), r, false, policy)).toEqual({ kind: 'fail', error: 'INTERNAL' });
    expect(decide(attempt(0, 3), r, false, policy)).toEqual({ kind: 'retry', attempts: 4, delayMs: 8000, error: 'INTERNAL', possiblyDelivered: false });
  });
});

describe('decide: ambiguous failures', () => {
  it('a retry after a timeout or 5xx of unknown fate is marked possibly delivered; after a refusal (429) it is not', () => {
    const timedOut: TokenResult = { status: 'retryable', error: 'FCM request timed out after 10000 ms', ambiguous: true };
    const refused: TokenResult = { status: 'retryable', error: 'FCM 429 QUOTA_EXCEEDED', retryAfterMs: 1000 };
    expect(decide(attempt(0), timedOut, false, policy)).toMatchObject({ kind: 'retry', possiblyDelivered: true });
    expect(decide(attempt(0), refused, false, policy)).toMatchObject({ kind: 'retry', possiblyDelivered: false });
  });
});

describe('backoffDelay', () => {
  it('doubles per attempt, with ±20 % jitter, capped, and never below Retry-After', () => {
    expect(backoffDelay(1, { ...policy, random: () => 0 })).toBe(800);
    expect(backoffDelay(1, { ...policy, random: () => 0.999999 })).toBe(1200);
    expect(backoffDelay(3, policy)).toBe(4000);
    expect(backoffDelay(20, policy)).toBe(60_000);
    expect(backoffDelay(1, policy, 30_000)).toBe(30_000);
  });
});
