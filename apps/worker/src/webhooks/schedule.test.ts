import { nextRetryDelay } from './schedule';

const policy = { baseMs: 1000, maxDelayMs: 60_000, windowMs: 24 * 3600_000 };
const eventAt = new Date('2026-11-23T00:00:00Z');
const now = eventAt.getTime();

describe('nextRetryDelay', () => {
  it('doubles per attempt up to the cap, with ±20 % jitter', () => {
    const mid = () => 0.5;
    expect([1, 2, 3, 4, 7, 30].map((a) => nextRetryDelay(a, policy, eventAt, { now, random: mid }))).toEqual([1000, 2000, 4000, 8000, 60_000, 60_000]);
    expect(nextRetryDelay(3, policy, eventAt, { now, random: () => 0 })).toBe(3200);
    expect(nextRetryDelay(3, policy, eventAt, { now, random: () => 1 })).toBe(4800);
  });

  it('waits at least what Retry-After asks', () => {
    expect(nextRetryDelay(1, policy, eventAt, { now, random: () => 0.5, retryAfterMs: 30_000 })).toBe(30_000);
    expect(nextRetryDelay(5, policy, eventAt, { now, random: () => 0.5, retryAfterMs: 1000 })).toBe(16_000);
  });

  it('stops once the next attempt would fall after the 24 h window', () => {
    const late = now + policy.windowMs - 30_000;
    expect(nextRetryDelay(20, policy, eventAt, { now: late, random: () => 0.5 })).toBeUndefined();
    expect(nextRetryDelay(2, policy, eventAt, { now: late, random: () => 0.5 })).toBe(2000);
    expect(nextRetryDelay(1, policy, eventAt, { now: late, random: () => 0.5, retryAfterMs: 3600_000 })).toBeUndefined();
  });
});
