/**
 * End-to-end delivery benchmark: API + one worker + the FCM emulator as separate processes, real
 * PostgreSQL and Redis. Sends bulk notifications (500 users × 2 devices each) for a fixed volume and
 * prints deliveries/s (accepted by the API → received by the emulator), p50/p99 time to delivery,
 * worker RSS, Postgres rows written per delivery, and — in the same run, against the same emulator —
 * the rate of a bare node:http2 client sending the same number of messages (the ceiling).
 *
 *   pnpm bench:delivery [--deliveries 100000] [--concurrency 4]
 *
 * Uses DATABASE_URL's server (database `herald_bench`, recreated) and REDIS_URL (a fresh key prefix).
 */
import { randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { api, bareLoop, cpuMs, cpuMsByName, fmt, freePort, mintAccessToken, pct, rssMiB, ROOT, serviceAccount, setupTenant, startEmulator, startNode, freshDatabase } from './lib';
import { deleteKeysWithPrefix } from '../../test/redis-keys';

const { values: args } = parseArgs({
  options: {
    deliveries: { type: 'string', default: '100000' },
    concurrency: { type: 'string', default: '4' },
    'worker-concurrency': { type: 'string' },
    /** Directory for a V8 CPU profile of the worker (node --cpu-prof). */
    'profile-worker': { type: 'string' },
  },
});
const USERS_PER_BULK = 500;
const DEVICES_PER_USER = 2;
const PER_BULK = USERS_PER_BULK * DEVICES_PER_USER;
const BULKS = Math.max(1, Math.round(Number(args.deliveries) / PER_BULK));
const TOTAL = BULKS * PER_BULK;

async function main() {
  const databaseUrl = await freshDatabase('herald_bench');

  const account = serviceAccount('bench-delivery');
  // Only the counters are read: keeping every message would make the emulator, not Herald, grow.
  const emulator = await startEmulator(account, 10_000);
  const env = {
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    QUEUE_PREFIX: `herald-bench-${randomBytes(3).toString('hex')}`,
    JWT_SECRET: randomBytes(32).toString('hex'),
    CREDENTIALS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    FCM_EMULATOR_HOST: emulator.host,
    LOG_LEVEL: 'warn',
    BCRYPT_ROUNDS: '4',
    METRICS_PORT: '0',
    RATE_LIMIT_SEND_BULK: '1000000',
    ...(args['worker-concurrency'] ? { WORKER_CONCURRENCY: args['worker-concurrency'] } : {}),
  };
  const port = await freePort();
  const apiProcess = await startNode(join(ROOT, 'apps/api/dist/main.js'), [], { ...env, PORT: String(port), LOG_LEVEL: 'info' }, /Herald API listening/);
  const profile = args['profile-worker'] ? ['--cpu-prof', `--cpu-prof-dir=${args['profile-worker']}`] : [];
  const worker = await startNode(join(ROOT, 'apps/worker/dist/main.js'), [], { ...env, LOG_LEVEL: 'info' }, /Herald worker started/, profile);
  const url = `http://127.0.0.1:${port}`;

  const tenant = await setupTenant(url, account);
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  // Distinct users per bulk, so that each notification reaches its own 1,000 devices.
  await db.query(
    `INSERT INTO "Device" ("id", "projectId", "userId", "deviceToken", "provider", "platform", "createdAt", "updatedAt", "lastSeenAt")
     SELECT gen_random_uuid(), $1::uuid, 'b' || b || '-u' || u, 'fcm-token-' || b || '-' || u || '-' || d || '-' || repeat('x', 120), 'fcm',
            CASE WHEN d = 0 THEN 'android' ELSE 'ios' END, now(), now(), now()
     FROM generate_series(1, $2::int) b, generate_series(1, $3::int) u, generate_series(0, $4::int - 1) d`,
    [tenant.projectId, BULKS, USERS_PER_BULK, DEVICES_PER_USER],
  );
  await db.query('VACUUM ANALYZE');
  const rowsBefore = await writtenRows(db);

  console.log(`Herald delivery benchmark: ${BULKS} bulk sends × ${USERS_PER_BULK} users × ${DEVICES_PER_USER} devices = ${fmt(TOTAL)} deliveries`);
  console.log(`machine: ${cpus().length} × ${cpus()[0].model}, Node ${process.version}; api, worker and emulator are separate processes\n`);

  const rss = { start: rssMiB(worker.pid), peak: 0, end: 0 };
  const sampler = setInterval(() => (rss.peak = Math.max(rss.peak, rssMiB(worker.pid))), 200);
  const cpu0 = { worker: cpuMs(worker.pid), api: cpuMs(apiProcess.pid), emulator: cpuMs(emulator.pid), postgres: cpuMsByName('postgres'), redis: cpuMsByName('redis-server') };
  const started = Date.now();

  let next = 1;
  const sendLoop = async () => {
    while (next <= BULKS) {
      const b = next++;
      const userIds = Array.from({ length: USERS_PER_BULK }, (_, u) => `b${b}-u${u + 1}`);
      await api(url, 'POST', '/push/send-bulk', { apiKey: tenant.apiKey, body: { userIds, templateId: tenant.templateId, variables: { order: `#${b}`, name: 'there' } }, expect: 202 });
    }
  };
  await Promise.all(Array.from({ length: Number(args.concurrency) }, sendLoop));
  const acceptedAll = Date.now();

  let last = 0;
  let lastChange = Date.now();
  const rssAt: string[] = [];
  for (;;) {
    const { accepted } = await emulator.stats();
    while (rssAt.length < 10 && accepted >= ((rssAt.length + 1) * TOTAL) / 10) rssAt.push(`${(rssAt.length + 1) * 10}%: ${rssMiB(worker.pid).toFixed(0)}`);
    if (accepted >= TOTAL) break;
    if (accepted !== last) [last, lastChange] = [accepted, Date.now()];
    if (Date.now() - lastChange > 30_000) throw new Error(`stalled at ${accepted}/${TOTAL}:\n${worker.output.join('').slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const finished = Date.now();
  clearInterval(sampler);
  const cpu = {
    worker: cpuMs(worker.pid) - cpu0.worker,
    api: cpuMs(apiProcess.pid) - cpu0.api,
    emulator: cpuMs(emulator.pid) - cpu0.emulator,
    postgres: cpuMsByName('postgres') - cpu0.postgres,
    redis: cpuMsByName('redis-server') - cpu0.redis,
  };
  const workerCpu = cpu.worker;
  await waitForCompletion(db, BULKS);
  rss.end = rssMiB(worker.pid);
  await new Promise((r) => setTimeout(r, 1500)); // let Postgres publish its statistics
  const rowsWritten = (await writtenRows(db)) - rowsBefore;
  const latency = await latencies(db);

  const seconds = (finished - started) / 1000;
  const rate = TOTAL / seconds;
  console.log(`accepted ${BULKS} bulks in ${((acceptedAll - started) / 1000).toFixed(2)} s; last delivery after ${seconds.toFixed(2)} s`);
  console.log(`end to end:             ${fmt(rate).padStart(8)} deliveries/s`);
  console.log(`time to delivery:       p50 ${latency.p50.toFixed(0)} ms, p99 ${latency.p99.toFixed(0)} ms (API accept → delivery recorded)`);
  console.log(`worker RSS:             start ${rss.start.toFixed(0)} MiB, peak ${rss.peak.toFixed(0)} MiB, end ${rss.end.toFixed(0)} MiB`);
  console.log(`worker RSS (MiB) by progress: ${rssAt.join(', ')}`);
  console.log(`worker CPU:             ${((workerCpu / 1000 / seconds) * 100).toFixed(0)} % of one core, ${((workerCpu * 1000) / TOTAL).toFixed(1)} µs per delivery`);
  const share = (ms: number) => `${((ms / 1000 / seconds) * 100).toFixed(0)} %`;
  console.log(`CPU of one core:        worker ${share(cpu.worker)}, emulator ${share(cpu.emulator)}, postgres ${share(cpu.postgres)}, redis ${share(cpu.redis)}, api ${share(cpu.api)} (2 cores = 200 %)`);
  console.log(`Postgres rows written:  ${(rowsWritten / TOTAL).toFixed(2)} per delivery (inserted + updated + deleted)`);

  // The ceiling: the same number of messages from a bare HTTP/2 loop to the same emulator.
  await emulator.clear();
  const token = await mintAccessToken(emulator.origin, account);
  const messages = Array.from({ length: TOTAL }, (_, i) => ({
    token: `fcm-token-bare-${i}-${'x'.repeat(120)}`,
    title: 'Your order #1 has shipped',
    body: 'Hi there, it should arrive on Thursday.',
    data: { kind: 'order.shipped' },
  }));
  const bareStarted = Date.now();
  const bareSent = await bareLoop(emulator.origin, account.projectId, token, messages, 100);
  const bareRate = bareSent / ((Date.now() - bareStarted) / 1000);
  console.log(`bare node:http2 client: ${fmt(bareRate).padStart(8)} messages/s (same emulator, 100 streams)`);
  console.log(`ratio:                  ${pct(rate / bareRate)} of the ceiling`);

  await db.end();
  await worker.stop();
  await apiProcess.stop();
  await emulator.stop();
  await deleteKeysWithPrefix(env.REDIS_URL, env.QUEUE_PREFIX);
}

async function writtenRows(db: Client): Promise<number> {
  const { rows } = await db.query(`SELECT tup_inserted + tup_updated + tup_deleted AS n FROM pg_stat_database WHERE datname = current_database()`);
  return Number(rows[0].n);
}

async function waitForCompletion(db: Client, bulks: number) {
  for (;;) {
    const { rows } = await db.query(`SELECT count(*)::int AS n FROM "Notification" WHERE "status" = 'completed'`);
    if (rows[0].n >= bulks) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** From the notification's creation (the API's accept) to the delivery row's `sent` write. */
async function latencies(db: Client) {
  const { rows } = await db.query(`
    SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS p50, percentile_cont(0.99) WITHIN GROUP (ORDER BY ms) AS p99
    FROM (SELECT EXTRACT(EPOCH FROM (d."updatedAt" - n."createdAt")) * 1000 AS ms
          FROM "Delivery" d JOIN "Notification" n ON n."id" = d."notificationId" WHERE d."status" = 'sent') t`);
  return { p50: Number(rows[0].p50), p99: Number(rows[0].p99) };
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
