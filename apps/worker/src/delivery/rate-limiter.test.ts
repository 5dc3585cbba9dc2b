import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import { runKeyPrefix, runRedis, runRedisServerOf, waitUntil } from '@herald/testing';
import { SendRateLimiter } from './rate-limiter';

/**
 * The FCM token bucket against the run's Redis (one server, or the cluster of `pnpm test:cluster`);
 * what the bucket means end to end is in rate.e2e.test.ts.
 */
let redis: Redis;
let monitored: Redis;
let monitor: Redis;
const seen: string[][] = [];
const shaPrefix = runKeyPrefix(`sha-${randomUUID()}`);

/**
 * A MONITOR connection to `server`. Not ioredis' own `monitor()`: when the first monitored line comes
 * in the same read as MONITOR's OK, before ioredis counts the connection as monitoring, it reports
 * that line as a reply nobody asked for ("Command queue state error") and `monitor()` rejects,
 * although the connection monitors on. Here that error is heard from the connection's start (the
 * line is lost; the test's commands come later), and the connection is ready once it monitors.
 */
async function monitorOf(server: Redis): Promise<Redis> {
  const connection = server.duplicate({ monitor: true, lazyConnect: false });
  connection.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    connection.once('monitoring', () => resolve());
    connection.once('end', () => reject(new Error('the MONITOR connection ended before it monitored')));
  });
  return connection;
}

beforeAll(async () => {
  redis = runRedis();
  // MONITOR shows one server's commands: the one that holds the SHA test's buckets.
  monitored = await runRedisServerOf(`${shaPrefix}:fcm-rate:any`);
  monitor = await monitorOf(monitored);
  monitor.on('monitor', (_time: string, args: string[]) => seen.push(args));
});
afterAll(async () => {
  // A MONITOR connection takes no QUIT from ioredis: closed, and waited for, so no socket outlives the
  // file (whatever beforeAll got to open).
  const ended = (r: Redis) => (r.status === 'end' ? Promise.resolve() : new Promise((resolve) => r.once('end', resolve)));
  const plain = [monitor, monitored].filter((r): r is Redis => r !== undefined);
  const closing = plain.map(ended);
  for (const r of plain) r.disconnect();
  await Promise.all([...closing, redis?.quit()]);
});

it('grants a minute\'s worth at once by default, then says how long to wait', async () => {
  const limiter = new SendRateLimiter(redis, runKeyPrefix(`bucket-${randomUUID()}`), 600); // 10 a second, bursts of 600
  const project = randomUUID();
  expect(await limiter.take(project, 600)).toEqual({ granted: 600, waitMs: 0 });
  const next = await limiter.take(project, 10);
  expect(next.granted).toBeLessThan(10);
  expect(next.waitMs).toBeGreaterThan(0);
  expect(next.waitMs).toBeLessThanOrEqual(1000);
});

it('grants a burst of the given size at once, then says how long to wait', async () => {
  const limiter = new SendRateLimiter(redis, runKeyPrefix(`bucket-${randomUUID()}`), 600, 10); // 10 a second, bursts of 10
  const project = randomUUID();
  expect(await limiter.take(project, 10)).toEqual({ granted: 10, waitMs: 0 });
  // The bucket is empty: what refilled since (one token per 100 ms) is granted, and the rest waits.
  const second = await limiter.take(project, 10);
  expect(second.granted).toBeLessThan(10);
  expect(second.waitMs).toBeGreaterThan(0);
  expect(second.waitMs).toBeLessThanOrEqual(1000);
});

it('sends the script\'s body once per connection, then only its SHA1', async () => {
  const fresh = runRedis();
  const prefix = shaPrefix;
  const limiter = new SendRateLimiter(fresh, prefix, 600_000);
  try {
    for (let i = 0; i < 3; i++) await limiter.take(randomUUID(), 1);
  } finally {
    await fresh.quit();
  }
  // MONITOR reports each command after it ran (and the script's own calls, which are not counted here).
  const ours = () =>
    seen
      .filter((args) => args.some((a) => a.startsWith(`${prefix}:fcm-rate:`)))
      .map((args) => args[0].toLowerCase())
      .filter((command) => command.startsWith('eval'));
  await waitUntil(() => ours().length >= 3, 2000, () => `three EVAL/EVALSHA of the bucket in MONITOR's output (seen: ${ours().join(', ') || 'none'})`, 20);
  expect(ours()).toEqual(['eval', 'evalsha', 'evalsha']);
});
