import type { TokenResult } from '@herald/providers';
import { backoffDelay, decide, type Attempt, type RetryPolicy } from './decide';

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
  const batch = results.map((_, i) => attempt(i));

  it('with another provider left, mismatches and credential failures fail over', () => {
    const d = decide(batch, results, true, policy);
    expect(d.sent).toEqual([{ deliveryId: 'd0', providerMessageId: 'projects/p/messages/1' }]);
    expect(d.prune).toEqual([{ deliveryId: 'd1', deviceId: 'dev1', error: 'UNREGISTERED' }]);
    expect(d.failover.map((f) => f.deliveryId)).toEqual(['d2', 'd3']);
    expect(d.retry).toEqual([{ deliveryId: 'd4', attempts: 1, delayMs: 5000, error: 'UNAVAILABLE' }]);
    expect(d.fail).toEqual([{ deliveryId: 'd5', error: 'INVALID_ARGUMENT' }]);
    expect(d.providerDown).toBe(true);
  });

  it('on the last provider, a mismatched token is pruned and a credential failure fails', () => {
    const d = decide(batch, results, false, policy);
    expect(d.prune.map((p) => p.deliveryId)).toEqual(['d1', 'd2']);
    expect(d.fail.map((f) => f.deliveryId)).toEqual(['d3', 'd5']);
    expect(d.failover).toEqual([]);
  });

  it('a dry run: an accepted message is validated, a dead or foreign token only fails (nothing is pruned)', () => {
    const d = decide(batch, results, false, policy, true);
    expect(d.sent).toEqual([]);
    expect(d.validated).toEqual([{ deliveryId: 'd0' }]);
    expect(d.prune).toEqual([]);
    expect(d.fail).toEqual([
      { deliveryId: 'd1', error: 'UNREGISTERED' },
      { deliveryId: 'd2', error: 'SENDER_ID_MISMATCH' },
      { deliveryId: 'd3', error: 'invalid_grant' },
      { deliveryId: 'd5', error: 'INVALID_ARGUMENT' },
    ]);
    // Failover and retries are decided as for a real send.
    expect(decide(batch, results, true, policy, true).failover.map((f) => f.deliveryId)).toEqual(['d2', 'd3']);
    expect(decide(batch, results, true, policy, true).retry.map((r) => r.deliveryId)).toEqual(['d4']);
  });

  it('exhausted retries fail over, or fail on the last provider', () => {
    const r: TokenResult[] = [{ status: 'retryable', error: 'INTERNAL' }];
    expect(decide([attempt(0, 4)], r, true, policy).failover).toEqual([{ deliveryId: 'd0', error: 'INTERNAL' }]);
    expect(decide([attempt(0, 4)], r, false, policy).fail).toEqual([{ deliveryId: 'd0', error: 'INTERNAL' }]);
    expect(decide([attempt(0, 3)], r, false, policy).retry).toEqual([{ deliveryId: 'd0', attempts: 4, delayMs: 8000, error: 'INTERNAL' }]);
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
