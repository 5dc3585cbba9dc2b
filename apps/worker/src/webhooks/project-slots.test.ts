import type Redis from 'ioredis';
import { runRedis, unique } from '@herald/testing';
import { ProjectSlots } from './project-slots';

/** The per-project request slots, on the run's Redis (one server, or the cluster of `pnpm test:cluster`). */
let redis: Redis;
beforeAll(() => {
  redis = runRedis();
});
afterAll(() => redis.quit());

it('a project holds at most its cap of slots; releasing one, or its lapse, frees it; projects are apart', async () => {
  const slots = new ProjectSlots(redis, unique('slots'), 2, 300);
  expect(await slots.take('p1', 'a')).toBe(true);
  expect(await slots.take('p1', 'b')).toBe(true);
  expect(await slots.take('p1', 'c')).toBe(false);
  // The same attempt taking again (a job run twice) keeps its slot.
  expect(await slots.take('p1', 'a')).toBe(true);
  expect(await slots.take('p2', 'x')).toBe(true);
  await slots.release('p1', 'a');
  expect(await slots.take('p1', 'c')).toBe(true);
  expect(await slots.take('p1', 'd')).toBe(false);
  // A worker that died holding slots: they lapse after holdMs.
  await new Promise((r) => setTimeout(r, 350));
  expect(await slots.take('p1', 'd')).toBe(true);
});

it('an attempt put back waits longer each time, up to a minute, spread', () => {
  const slots = new ProjectSlots(redis, unique('slots'), 1, 1000);
  expect(slots.retryDelayMs(0, () => 0.5)).toBe(1000);
  expect(slots.retryDelayMs(3, () => 0.5)).toBe(8000);
  expect(slots.retryDelayMs(20, () => 0.5)).toBe(60_000);
  expect(slots.retryDelayMs(0, () => 0)).toBe(500);
  expect(slots.retryDelayMs(0, () => 0.999)).toBeLessThan(1500);
});
