/**
 * Local-time broadcast benchmark (docs/benchmarks.md#local-time-broadcast): N devices (a million by
 * default) over 30 zones of one project, seeded straight into a scratch database with
 * `generate_series`, then a broadcast to all of them with `deliverAt: {localTime}` planned by the
 * worker's own fan-out (apps/worker/src/delivery/fan-out.ts, pages of 1,000 as in the worker) against
 * the real Postgres and a BullMQ queue in Redis under a scratch prefix. It prints the jobs in the queue
 * and Redis' used_memory before and after planning, the planning time, and the statements sent to
 * Postgres. The point: held deliveries share one delayed job per moment (about 30), not one per device.
 *
 *   pnpm bench:local-time [--devices 1000000] [--page 1000] [--local-time 09:00] [--database herald_bench_local_time] [--keep]
 *
 * Uses DATABASE_URL's server (the database is created afresh and dropped unless --keep) and REDIS_URL
 * (the scratch prefix is emptied before and after).
 */
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { Client, Pool } from 'pg';
import { heldDeliverJobFor, NOTIFICATIONS_QUEUE, timingOf } from '../../packages/core/src';
import { dropDatabase } from '../../packages/db/src/migrate';
import { FanOut } from '../../apps/worker/src/delivery/fan-out';
import { DeliveryRepository } from '../../apps/worker/src/delivery/repository';
import { fmt, freshDatabase } from './lib';

const { values: args } = parseArgs({
  options: {
    devices: { type: 'string', default: '1000000' },
    page: { type: 'string', default: '1000' },
    'local-time': { type: 'string', default: '09:00' },
    database: { type: 'string', default: 'herald_bench_local_time' },
    keep: { type: 'boolean', default: false },
  },
});
const DEVICES = Number(args.devices);
const PAGE = Number(args.page);
const SEED_CHUNK = 100_000;
const PREFIX = 'herald-bench-local-time';

/** 30 zones over the world's offsets, half-hour and quarter-hour ones included. */
const ZONES = [
  'Pacific/Honolulu', 'America/Anchorage', 'America/Los_Angeles', 'America/Denver', 'America/Chicago', 'America/New_York',
  'America/Caracas', 'America/Sao_Paulo', 'America/St_Johns', 'Atlantic/Azores', 'UTC', 'Europe/London', 'Europe/Berlin',
  'Africa/Cairo', 'Europe/Moscow', 'Asia/Tehran', 'Asia/Dubai', 'Asia/Kabul', 'Asia/Karachi', 'Asia/Kolkata', 'Asia/Kathmandu',
  'Asia/Dhaka', 'Asia/Yangon', 'Asia/Bangkok', 'Asia/Shanghai', 'Asia/Tokyo', 'Australia/Adelaide', 'Australia/Sydney',
  'Pacific/Auckland', 'Pacific/Kiritimati',
];

/** Statements sent to Postgres by every pg client of this process (the fan-out's pool included). */
let statements = 0;
const query = Client.prototype.query;
Client.prototype.query = function countedQuery(this: Client, ...a: unknown[]) {
  statements++;
  return (query as (...x: unknown[]) => unknown).apply(this, a);
} as typeof Client.prototype.query;

async function seed(client: Client, projectId: string) {
  const started = performance.now();
  for (let from = 1; from <= DEVICES; from += SEED_CHUNK) {
    const to = Math.min(DEVICES, from + SEED_CHUNK - 1);
    // Every 20th device has no zone: it follows the project's default.
    await client.query(
      `INSERT INTO "Device" ("id", "projectId", "userId", "deviceToken", "provider", "platform", "createdAt", "updatedAt", "timezone")
       SELECT gen_random_uuid(), $1::uuid, 'user-' || (g / 2), 'bench-' || g, 'fcm', 'android', now(), now(), CASE WHEN g % 20 <> 0 THEN ($4::text[])[1 + g % 30] END
       FROM generate_series($2::int, $3::int) g`,
      [projectId, from, to, ZONES],
    );
    process.stdout.write(`\r  seeding: ${fmt(to)} / ${fmt(DEVICES)}`);
  }
  process.stdout.write(`  (${((performance.now() - started) / 1000).toFixed(1)} s)\n`);
  await client.query('VACUUM ANALYZE "Device"');
}

/** A broadcast to every device as the API admits it: its timing fixed now, one pending delivery for the fan-out. */
async function accept(client: Client, projectId: string): Promise<string> {
  const templateId = randomUUID();
  await client.query(`INSERT INTO "PushTemplate" ("id", "projectId", "name", "title", "body", "updatedAt") VALUES ($1, $2, 'bench', 'Hi', 'There', now())`, [templateId, projectId]);
  const id = randomUUID();
  const timing = timingOf({ localTime: String(args['local-time']), exempt: false }, { defaultTimezone: 'UTC', quietHours: { start: '22:00', end: '08:00' } });
  await client.query(
    `INSERT INTO "Notification" ("id", "projectId", "templateId", "variables", "userIds", "status", "timing", "audience", "pendingDeliveries", "createdAt", "updatedAt")
     VALUES ($1, $2, $3, '{}', '{}', 'queued', $4, '{"all": true}', 1, now(), now())`,
    [id, projectId, templateId, JSON.stringify(timing)],
  );
  return id;
}

async function redisState(redis: Redis, queue: Queue) {
  const info = await redis.info('memory');
  const used = Number(/used_memory:(\d+)/.exec(info)![1]);
  const counts = await queue.getJobCounts('delayed', 'wait', 'active', 'completed', 'failed');
  return { used, counts, queueBytes: await prefixBytes(redis) };
}

/** What the queue's own keys take (MEMORY USAGE summed): used_memory is the whole server's, shared with whatever else runs. */
async function prefixBytes(redis: Redis) {
  let bytes = 0;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${PREFIX}:*`, 'COUNT', 1000);
    for (const key of keys) bytes += Number((await redis.memory('USAGE', key)) ?? 0);
    cursor = next;
  } while (cursor !== '0');
  return bytes;
}

async function clearPrefix(redis: Redis) {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${PREFIX}:*`, 'COUNT', 1000);
    if (keys.length) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
}

async function main() {
  const url = await freshDatabase(String(args.database));
  const client = new Client({ connectionString: url });
  await client.connect();
  const pool = new Pool({ connectionString: url, max: 4 });
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
  const queue = new Queue(NOTIFICATIONS_QUEUE, { connection: redis, prefix: PREFIX });
  try {
    await clearPrefix(redis);
    const owner = randomUUID();
    const projectId = randomUUID();
    await client.query(`INSERT INTO "User" ("id", "email", "passwordHash", "firstName", "lastName", "updatedAt") VALUES ($1, $2, 'x', 'Bench', 'Mark', now())`, [owner, `${owner}@bench.test`]);
    await client.query(`INSERT INTO "Project" ("id", "name", "ownerId", "updatedAt") VALUES ($1, 'bench', $2, now())`, [projectId, owner]);
    console.log(`local-time broadcast benchmark: ${fmt(DEVICES)} devices over ${ZONES.length} zones (every 20th without one); deliverAt ${String(args['local-time'])}, quiet hours 22:00–08:00; page ${fmt(PAGE)}`);
    await seed(client, projectId);
    const id = await accept(client, projectId);
    const [row] = await new DeliveryRepository(pool, 30_000).load([id]);

    let pageJobs = 0;
    let pageJobDeliveries = 0;
    const fanOut = new FanOut({
      pool,
      pageSize: PAGE,
      enqueue: async (job) => {
        pageJobs++;
        pageJobDeliveries += job.data.deliveryIds.length;
        await queue.add(job.name, job.data, job.opts);
      },
      enqueueHeld: async (held) => void (await queue.addBulk(held.map((h) => heldDeliverJobFor(h.notificationId, h.dueAt)))),
      finished: () => undefined,
    });

    const before = await redisState(redis, queue);
    const statementsBefore = statements;
    console.log(`  load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    const started = performance.now();
    await fanOut.run(row);
    const seconds = (performance.now() - started) / 1000;
    const after = await redisState(redis, queue);
    const planned = statements - statementsBefore;

    const { rows: n } = await client.query<{ devices: number; defaultZoneDevices: number; pendingDeliveries: number }>(
      `SELECT "devices", "defaultZoneDevices", "pendingDeliveries" FROM "Notification" WHERE "id" = $1`,
      [id],
    );
    const { rows: held } = await client.query<{ held: number; moments: number }>(
      `SELECT count(*)::int AS "held", count(DISTINCT "notBefore")::int AS "moments" FROM "Delivery" WHERE "notificationId" = $1 AND "nextAttemptAt" = "notBefore" AND "notBefore" > now()`,
      [id],
    );
    const delayed = await queue.getJobs(['delayed']);
    const heldJobs = delayed.filter((j) => j.id?.startsWith(`deliver-${id}-at-`)).length;
    console.log(`  planned: ${fmt(n[0].devices)} deliveries (${fmt(n[0].defaultZoneDevices)} in the default zone), ${fmt(held[0].held)} held for ${held[0].moments} moments`);
    console.log(`  planning time: ${seconds.toFixed(1)} s (${fmt(n[0].devices / seconds)} devices/s)`);
    console.log(`  Postgres statements while planning: ${fmt(planned)} (${(planned / Math.ceil(DEVICES / PAGE)).toFixed(1)} per page)`);
    console.log(`  BullMQ jobs before: ${JSON.stringify(before.counts)}`);
    console.log(`  BullMQ jobs after:  ${JSON.stringify(after.counts)}: ${heldJobs} delayed deliver jobs (one per moment), ${fmt(pageJobs)} page jobs of ${fmt(pageJobDeliveries)} deliveries due now`);
    console.log(`  Redis used_memory: ${(before.used / 2 ** 20).toFixed(2)} MiB before, ${(after.used / 2 ** 20).toFixed(2)} MiB after (${after.used >= before.used ? '+' : ''}${((after.used - before.used) / 2 ** 10).toFixed(0)} KiB, the whole server); the queue's keys: ${(before.queueBytes / 2 ** 10).toFixed(0)} KiB before, ${(after.queueBytes / 2 ** 10).toFixed(0)} KiB after`);
  } finally {
    await queue.close();
    await clearPrefix(redis).catch(() => undefined);
    redis.disconnect();
    await pool.end();
    await client.end();
    if (!args.keep) await dropDatabase(url);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
