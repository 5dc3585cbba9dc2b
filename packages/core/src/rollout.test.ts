import { randomUUID } from 'node:crypto';
import { rolloutBucket, rolloutStageOf } from './rollout';

describe("a staged rollout's buckets", () => {
  const notificationId = randomUUID();
  const devices = Array.from({ length: 20_000 }, () => randomUUID());

  it('are reproducible: the same (notification, device) always falls in the same bucket, another notification elsewhere', () => {
    const first = devices.map((d) => rolloutBucket(notificationId, d));
    expect(devices.map((d) => rolloutBucket(notificationId, d))).toEqual(first);
    const other = randomUUID();
    const moved = devices.filter((d, i) => rolloutBucket(other, d) !== first[i]).length;
    expect(moved).toBeGreaterThan(devices.length * 0.99);
    expect(first.every((b) => b >= 0 && b < 100)).toBe(true);
  });

  it('are about uniform: each tenth of the range holds about a tenth of the devices', () => {
    const deciles = new Array<number>(10).fill(0);
    for (const d of devices) deciles[Math.floor(rolloutBucket(notificationId, d) / 10)]++;
    // 2,000 expected in each; a binomial's standard deviation is about 42, so 5 of them is a wide margin.
    for (const n of deciles) expect(Math.abs(n - 2000)).toBeLessThan(250);
  });

  it('fall in the stage whose range holds them', () => {
    const stages = [1, 10, 50, 100];
    expect([0, 0.99, 1, 9.999, 10, 49.5, 50, 99.99].map((b) => rolloutStageOf(stages, b))).toEqual([0, 0, 1, 1, 2, 2, 3, 3]);
    const sizes = [0, 0, 0, 0];
    for (const d of devices) sizes[rolloutStageOf(stages, rolloutBucket(notificationId, d))]++;
    expect(sizes[0] / devices.length).toBeCloseTo(0.01, 2);
    expect(sizes[1] / devices.length).toBeCloseTo(0.09, 1);
    expect(sizes[2] / devices.length).toBeCloseTo(0.4, 1);
    expect(sizes[3] / devices.length).toBeCloseTo(0.5, 1);
  });
});
