/**
 * End-to-end delivery benchmark: API + one worker + the FCM emulator as separate processes, real
 * PostgreSQL and Redis, and — in the same run, against the same emulator — a bare node:http2 client
 * sending the same number of messages (the ceiling). The machine is shared and noisy: read the
 * ratios of one run, not absolute figures across runs.
 *
 *   pnpm bench:delivery [--deliveries 100000] [--concurrency 4]       bulk: 500 users × 2 devices per send
 *   pnpm bench:delivery --mode one-user [--notifications 20000] [--clients 32]   one-user sends, drained by a stopped worker
 *   pnpm bench:delivery --mode latency [--rate 20] [--seconds 60] [--warmup 0]   paced sends: POST → emulator receipt
 *   pnpm bench:delivery --mode broadcast [--devices 1000000]   a broadcast to all, then to a tag matching 10 %
 *
 * - bulk: the worker runs from the start (a cold start); the rate is deliveries/s from the first
 *   accepted send to the last message the emulator received.
 * - one-user: N notifications to one user with one device each are accepted through the API while
 *   no worker runs (`--clients` at once, 32 by default: the sends the API admits together share a
 *   deliver job, and the run prints how many jobs there were; with 1, each send has a job of its own);
 *   then the worker starts and the drain rate is notifications/s from its start until every
 *   notification is final.
 * - latency: sends paced at `--rate` per second for `--seconds`, each to its own device; p50/p99/max
 *   from the POST being sent to the emulator receiving the message (also by 10 s of sends), and how
 *   far delivery lagged. `--warmup S` first sends S seconds at the same rate that are not counted
 *   (nor is the CPU they cost): the figures of processes whose code is compiled and whose connections are open.
 *
 * `--history N` (any mode) first writes N deliveries of history into the tenant's project — final
 * notifications of the last 29 days, half of them bulk sends of 1,000 devices and half one-user
 * sends, with their Delivery rows filled as the worker leaves them — and analyses them, as a
 * production database is; the run then measures on top of it, and times the project's overview.
 * 2,000,000 is the size docs/benchmarks.md reports. With `--history-fresh` the history is not analysed
 * and no mode analyses before measuring (statistics as a bulk just written leaves them; autovacuum
 * may analyse during the run).
 * `--after-bulk N` (one-user mode) first runs a bulk of N deliveries through a worker of its own and
 * stops it, then accepts the one-user sends and drains them with a new worker: with `--history-fresh`,
 * the sequence of a database a bulk has just churned (dead row versions, stale statistics, autovacuum
 * starting). The drain prints what Postgres did meanwhile: the server's backends sampled every 100 ms
 * (state and wait event, autovacuum's work) and the tables' dead rows and last analyses.
 * - broadcast: `--devices` devices seeded in Postgres (every tenth tagged `plan: pro`); the count of
 *   the 10 % filter through the API, a broadcast to all (202 → first message at the emulator → last),
 *   then one to the 10 % filter; the API's and the worker's RSS are sampled throughout. It also prints
 *   how far the fan-out had planned at each tenth of the deliveries, the worker's statements by time,
 *   and EXPLAIN ANALYZE BUFFERS of a page of the 10 % filter, as an id window and as a plain keyset page.
 *
 * Every mode prints the worker's CPU per delivery (µs), its PostgreSQL statements per notification
 * and per delivery (counted in the worker process), and its RSS at start, peak and end.
 * Options: --worker-concurrency N, --profile-worker DIR (a V8 CPU profile of the worker, --cpu-prof), --profile-api DIR,
 * --node-options "…" (the worker's node flags; default: those of `pnpm start:worker`), --api-node-options "…"
 * (the API's; default: those of `pnpm start:api`), --worker-log FILE, --fcm-rate N.
 *
 * The worker's FCM budget (FCM_RATE_PER_MINUTE, by default FCM's own default quota of 600,000 a minute
 * per project, 10,000/s) is lifted so that a run measures the worker rather than the quota, as the bare
 * client has none; `--fcm-rate N` runs with a budget of N a minute.
 *
 * Uses DATABASE_URL's server (database `herald_bench`, or --database NAME: created afresh, dropped at
 * the end) and REDIS_URL (a fresh key prefix, deleted at the end).
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Redis from 'ioredis';
import { Client } from 'pg';
import { api, bareLoop, cpuMs, cpuMsByName, fmt, freePort, mintAccessToken, pct, percentile, rssMiB, ROOT, serviceAccount, setupTenant, startEmulator, startNode, freshDatabase, stealMs } from './lib';
import { dropDatabase } from '../../packages/db/src/migrate';
import { audiencePageStatement } from '../../packages/db/src/audience-sql';
import { bigIntToUuid } from '../../packages/db/src/audience-window';
import type { AudienceFilter } from '../../packages/schemas/src';
import { deleteKeysWithPrefix } from '../../test/redis-keys';

/** The worker's FCM budget unless --fcm-rate says otherwise: a billion a minute, no limit at all here. */
const LIFTED_FCM_RATE = 1_000_000_000;
const { values: args } = parseArgs({
  options: {
    mode: { type: 'string', default: 'bulk' },
    deliveries: { type: 'string', default: '100000' },
    notifications: { type: 'string', default: '20000' },
    /** One-user mode: API clients sending at once while the sends are accepted. */
    clients: { type: 'string', default: '32' },
    concurrency: { type: 'string', default: '4' },
    rate: { type: 'string', default: '20' },
    seconds: { type: 'string', default: '60' },
    devices: { type: 'string', default: '1000000' },
    warmup: { type: 'string', default: '0' },
    'worker-concurrency': { type: 'string' },
    'fcm-rate': { type: 'string', default: String(LIFTED_FCM_RATE) },
    /** Directory for a V8 CPU profile of the worker (node --cpu-prof). */
    'profile-worker': { type: 'string' },
    /** Directory for a V8 CPU profile of the API. */
    'profile-api': { type: 'string' },
    /** The API's node flags (default: those of `pnpm start:api`). */
    'api-node-options': { type: 'string' },
    /** The worker's node flags (default: those `pnpm start:worker` runs it with), e.g. "--max-old-space-size=96 --trace-gc". */
    'node-options': { type: 'string' },
    /** A file to write the worker's output to, once the run is over. */
    'worker-log': { type: 'string' },
    /** The database the run creates on DATABASE_URL's server, and drops at the end. */
    database: { type: 'string', default: 'herald_bench' },
    /** Deliveries of history written before the run (final notifications of the last 29 days). */
    history: { type: 'string', default: '0' },
    /** Leave the history as a bulk just written leaves it: not analysed (autovacuum may catch up during the run). */
    'history-fresh': { type: 'boolean', default: false },
    /** One-user mode: first a bulk of N deliveries through a worker of its own, stopped before the one-user sends. */
    'after-bulk': { type: 'string', default: '0' },
  },
});
const MODE = args.mode;
/** The flags `pnpm <script>` gives node (package.json): the figures are those of the processes as shipped. */
const shippedFlags = (script: string) => JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts[script].split(' ').filter((a: string) => a.startsWith('--')).join(' ');
const flags = (given: string | undefined, script: string): string[] => (given ?? shippedFlags(script)).split(' ').filter(Boolean);
const WORKER_NODE_FLAGS = flags(args['node-options'], 'start:worker');
const API_NODE_FLAGS = flags(args['api-node-options'], 'start:api');
if (!['bulk', 'one-user', 'latency', 'broadcast'].includes(MODE!)) throw new Error(`--mode must be bulk, one-user, latency or broadcast, not ${MODE}`);
const HISTORY = Number(args.history);
/** The notifications of the history (all final): the run's own are counted beside them. */
let historyNotifications = 0;
/** Final notifications of an earlier phase of the run (`--after-bulk`), not the measured ones. */
let earlierNotifications = 0;
/** The measured notifications are those created after this moment (epoch seconds). */
let measuredSince = 0;
const USERS_PER_BULK = 500;
const DEVICES_PER_USER = 2;
const PER_BULK = USERS_PER_BULK * DEVICES_PER_USER;

const TITLE = 'Your order {{order}} has shipped';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const databaseUrl = await freshDatabase(args.database!);
  const account = serviceAccount('bench-delivery');
  // Only the counters are read in bulk and one-user modes: keeping every message would make the emulator, not Herald, grow.
  const emulator = await startEmulator(account, MODE === 'latency' ? Math.ceil(Number(args.rate) * (Number(args.warmup) + Number(args.seconds))) + 100 : 10_000);
  const countDir = mkdtempSync(join(tmpdir(), 'herald-bench-count-'));
  const countFile = join(countDir, 'statements');
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
    MAIL_TRANSPORT: 'log',
    RATE_LIMIT_SEND: '100000000',
    RATE_LIMIT_SEND_BULK: '1000000',
    RATE_LIMIT_PROJECT_SEND: '0',
    FCM_RATE_PER_MINUTE: args['fcm-rate'],
    ...(args['worker-concurrency'] ? { WORKER_CONCURRENCY: args['worker-concurrency'] } : {}),
  };
  const port = await freePort();
  const apiProcess = await startNode(join(ROOT, 'apps/api/dist/main.js'), [], { ...env, PORT: String(port), LOG_LEVEL: 'info' }, /Herald API listening/, [
    ...API_NODE_FLAGS,
    ...(args['profile-api'] ? ['--cpu-prof', `--cpu-prof-dir=${args['profile-api']}`] : []),
  ]);
  const url = `http://127.0.0.1:${port}`;
  const startWorker = async () => {
    const profile = args['profile-worker'] ? ['--cpu-prof', `--cpu-prof-dir=${args['profile-worker']}`] : [];
    const counting = [...WORKER_NODE_FLAGS, '--require', join(__dirname, 'count-queries.cjs')];
    const started = await startNode(join(ROOT, 'apps/worker/dist/main.js'), [], { ...env, LOG_LEVEL: 'info', HERALD_BENCH_QUERY_COUNT: countFile }, /Herald worker started/, [...counting, ...profile]);
    worker = started;
    return started;
  };
  let worker: Worker | undefined;
  /** Statements the worker has sent so far: asked for with SIGUSR2 (see count-queries.cjs). */
  const statements = async () => {
    const read = () => {
      try {
        return readFileSync(countFile, 'utf8').split(' ').map(Number);
      } catch {
        return [0, 0];
      }
    };
    const [, before] = read();
    worker!.process.kill('SIGUSR2');
    for (let i = 0; i < 200; i++) {
      const [count, answer] = read();
      if (answer !== before) return count;
      await sleep(10);
    }
    throw new Error('the worker did not report its statement count');
  };

  const tenant = await setupTenant(url, account);
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  const redis = new Redis(env.REDIS_URL);
  /** Commands the Redis server has run so far (every client's: in one-user mode only the worker's while it drains). */
  const redisCommands = async () => Number(/total_commands_processed:(\d+)/.exec(await redis.info('stats'))![1]);
  /** The worker's statements by kind, as of its last answer to `statements()`: [count, ms in all, slowest ms]. */
  const statementTimes = (): StatementTimes => {
    try {
      return JSON.parse(readFileSync(`${countFile}.times`, 'utf8')) as StatementTimes;
    } catch {
      return {};
    }
  };
  const ctx: Stack = { url, databaseUrl, db, tenant, emulator, apiPid: apiProcess.pid, startWorker, statements, statementTimes, redisCommands };
  console.log(`machine: ${cpus().length} × ${cpus()[0].model}, Node ${process.version}; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log(`api, worker (node ${WORKER_NODE_FLAGS.join(' ') || 'without flags'}) and emulator are separate processes; figures are from this one run, read the ratios`);
  console.log(`FCM_RATE_PER_MINUTE=${fmt(Number(args['fcm-rate']))}${Number(args['fcm-rate']) === LIFTED_FCM_RATE ? ' (lifted: the run measures the worker, not the quota)' : ''}\n`);

  if (HISTORY > 0) await buildHistory(db, tenant.projectId, tenant.templateId);

  let measured: Measured;
  if (MODE === 'bulk') measured = await bulk(ctx, Number(args.deliveries));
  else if (MODE === 'one-user') {
    if (Number(args['after-bulk']) > 0) await bulkBefore(ctx, Number(args['after-bulk']));
    measured = await oneUser(ctx);
  }
  else if (MODE === 'broadcast') measured = await broadcastMode(ctx);
  else measured = await latency(ctx);
  report(measured);
  if (HISTORY > 0) await timeOverview(url, tenant.projectId, tenant.token);

  if (MODE !== 'latency') {
    // The ceiling: the same number of messages from a bare HTTP/2 loop to the same emulator.
    await emulator.clear();
    const token = await mintAccessToken(emulator.origin, account);
    const messages = Array.from({ length: measured.deliveries }, (_, i) => ({
      token: `fcm-token-bare-${i}-${'x'.repeat(120)}`,
      title: 'Your order #1 has shipped',
      body: 'Hi there, it should arrive on Thursday.',
      data: { kind: 'order.shipped' },
    }));
    const bareStarted = Date.now();
    const emulatorCpu = cpuMs(emulator.pid);
    const bareSent = await bareLoop(emulator.origin, account.projectId, token, messages, 100);
    const bareSeconds = (Date.now() - bareStarted) / 1000;
    const bareRate = bareSent / bareSeconds;
    // The emulator's share shows which side of the bare loop is the limit.
    const emulatorBusy = (cpuMs(emulator.pid) - emulatorCpu) / 10 / bareSeconds;
    console.log(`bare node:http2 client: ${fmt(bareRate).padStart(8)} messages/s (same emulator, 100 streams; the emulator meanwhile at ${emulatorBusy.toFixed(0)} % of a core)`);
    console.log(`ratio:                  ${pct(measured.deliveries / measured.seconds / bareRate)} of the ceiling (deliveries/s)`);
  }

  await db.end();
  redis.disconnect();
  await measured.worker.stop();
  if (args['worker-log']) writeFileSync(args['worker-log'], measured.worker.output.join(''));
  await apiProcess.stop();
  await emulator.stop();
  await deleteKeysWithPrefix(env.REDIS_URL, env.QUEUE_PREFIX);
  await dropDatabase(databaseUrl);
  rmSync(countDir, { recursive: true, force: true });
}

type Worker = Awaited<ReturnType<typeof startNode>>;

interface Stack {
  url: string;
  databaseUrl: string;
  db: Client;
  tenant: Awaited<ReturnType<typeof setupTenant>>;
  emulator: Awaited<ReturnType<typeof startEmulator>>;
  apiPid: number;
  startWorker(): Promise<Worker>;
  /** PostgreSQL statements the worker has sent so far. */
  statements(): Promise<number>;
  /** Their kinds and times, as of the last `statements()`. */
  statementTimes(): StatementTimes;
  redisCommands(): Promise<number>;
}

/** By kind of statement (its prepared name or first words): [count, ms from sent to answered in all, slowest ms]. */
type StatementTimes = Record<string, readonly [number, number, number]>;

interface Measured {
  title: string;
  worker: Worker;
  notifications: number;
  deliveries: number;
  seconds: number;
  rateLine: string;
  cpu: Record<'worker' | 'api' | 'emulator' | 'postgres' | 'redis' | 'steal', number>;
  statements: number;
  /** The statements' kinds and times during the measurement (what the worker waited for). */
  statementTimes?: StatementTimes;
  redisCommands: number;
  rss: { start: number; peak: number; end: number };
  extra: string[];
}

/** CPU and RSS of the stack while something runs. */
async function meter(s: Stack, worker: Worker) {
  const sample = () => ({ worker: cpuMs(worker.pid), api: cpuMs(s.apiPid), emulator: cpuMs(s.emulator.pid), postgres: cpuMsByName('postgres'), redis: cpuMsByName('redis-server'), steal: stealMs() });
  const cpu0 = sample();
  const statements0 = await s.statements();
  const times0 = s.statementTimes();
  const commands0 = await s.redisCommands();
  const start = rssMiB(worker.pid);
  // The peak includes the start: a worker that gives memory back during a short run peaked there.
  const rss = { start, peak: start, end: 0 };
  const sampler = setInterval(() => (rss.peak = Math.max(rss.peak, rssMiB(worker.pid))), 200);
  return {
    rss,
    async stop() {
      clearInterval(sampler);
      const cpu1 = sample();
      rss.end = rssMiB(worker.pid);
      rss.peak = Math.max(rss.peak, rss.end);
      const cpu = Object.fromEntries(Object.entries(cpu1).map(([k, v]) => [k, v - cpu0[k as keyof typeof cpu0]])) as Measured['cpu'];
      const statements = (await s.statements()) - statements0;
      const times1 = s.statementTimes();
      const statementTimes = Object.fromEntries(
        Object.entries(times1).map(([kind, [count, ms, max]]) => [kind, [count - (times0[kind]?.[0] ?? 0), ms - (times0[kind]?.[1] ?? 0), max]] as const).filter(([, [count]]) => count > 0),
      );
      return { cpu, rss, statements, statementTimes, redisCommands: (await s.redisCommands()) - commands0 };
    },
  };
}

/** Bulk sends of 500 users × 2 devices, accepted while the worker runs (a cold start). */
async function bulk(s: Stack, deliveries: number): Promise<Measured> {
  const bulks = Math.max(1, Math.round(deliveries / PER_BULK));
  const total = bulks * PER_BULK;
  // Distinct users per bulk, so that each notification reaches its own 1,000 devices.
  await s.db.query(
    `INSERT INTO "Device" ("id", "projectId", "userId", "deviceToken", "provider", "platform", "createdAt", "updatedAt", "lastSeenAt")
     SELECT gen_random_uuid(), $1::uuid, 'b' || b || '-u' || u, 'fcm-token-' || b || '-' || u || '-' || d || '-' || repeat('x', 120), 'fcm',
            CASE WHEN d = 0 THEN 'android' ELSE 'ios' END, now(), now(), now()
     FROM generate_series(1, $2::int) b, generate_series(1, $3::int) u, generate_series(0, $4::int - 1) d`,
    [s.tenant.projectId, bulks, USERS_PER_BULK, DEVICES_PER_USER],
  );
  await settle(s.db);
  const worker = await s.startWorker();
  await sleep(1000); // its statements at start are not the deliveries'
  console.log(`Herald delivery benchmark (bulk): ${bulks} bulk sends × ${USERS_PER_BULK} users × ${DEVICES_PER_USER} devices = ${fmt(total)} deliveries`);
  const m = await meter(s, worker);
  const started = Date.now();
  let next = 1;
  const sendLoop = async () => {
    while (next <= bulks) {
      const b = next++;
      const userIds = Array.from({ length: USERS_PER_BULK }, (_, u) => `b${b}-u${u + 1}`);
      await api(s.url, 'POST', '/push/send-bulk', { apiKey: s.tenant.apiKey, body: { userIds, templateId: s.tenant.templateId, variables: { order: `#${b}`, name: 'there' } }, expect: 202 });
    }
  };
  const rssAt: string[] = [];
  // The worker's CPU from the first send to each tenth: what its cold start costs beyond the rest.
  const cpuAt: number[] = [];
  const cpuStart = cpuMs(worker.pid);
  // When the first delivery and each tenth of them reached the emulator: where a cold start's time
  // goes. Watched from the first send on, while the others are still being accepted.
  const reachedAt: string[] = [];
  let firstAt = 0;
  const delivered = waitForEmulator(s, total, worker, (accepted) => {
    if (accepted > 0 && !firstAt) firstAt = Date.now() - started;
    while (rssAt.length < 10 && accepted >= ((rssAt.length + 1) * total) / 10) {
      rssAt.push(`${(rssAt.length + 1) * 10}%: ${rssMiB(worker.pid).toFixed(0)}`);
      cpuAt.push(cpuMs(worker.pid) - cpuStart);
      reachedAt.push(((Date.now() - started) / 1000).toFixed(2));
    }
  });
  let acceptedAll = 0;
  const accepting = Promise.all(Array.from({ length: Number(args.concurrency) }, sendLoop)).then(() => (acceptedAll = Date.now()));
  await Promise.all([accepting, delivered]);
  const seconds = (Date.now() - started) / 1000;
  await waitForFinal(s.db, bulks);
  const { cpu, rss, statements, redisCommands } = await m.stop();
  const lat = await s.db.query(`
    SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS p50, percentile_cont(0.99) WITHIN GROUP (ORDER BY ms) AS p99
    FROM (SELECT EXTRACT(EPOCH FROM (d."updatedAt" - n."createdAt")) * 1000 AS ms
          FROM "Delivery" d JOIN "Notification" n ON n."id" = d."notificationId" WHERE d."status" = 'sent' AND ${RECENT('n')}) t`);
  return {
    title: 'bulk',
    worker,
    notifications: bulks,
    deliveries: total,
    seconds,
    rateLine: `${fmt(total / seconds)} deliveries/s (accepted ${bulks} bulks in ${((acceptedAll - started) / 1000).toFixed(2)} s; last delivery after ${seconds.toFixed(2)} s)`,
    cpu,
    statements,
    redisCommands,
    rss,
    extra: [
      `time to delivery:       p50 ${Number(lat.rows[0].p50).toFixed(0)} ms, p99 ${Number(lat.rows[0].p99).toFixed(0)} ms (API accept → delivery recorded)`,
      `worker RSS (MiB) by progress: ${rssAt.join(', ')}`,
      `worker CPU (ms) by progress: ${cpuAt.join(', ')} (from the first send)`,
      `progress (s):           first delivery after ${(firstAt / 1000).toFixed(2)}; each tenth of them after ${reachedAt.join(', ')}`,
    ],
  };
}

/** A broadcast to every seeded device, then one to a tag that every tenth device has. */
async function broadcastMode(s: Stack): Promise<Measured> {
  const n = Number(args.devices);
  await s.db.query(
    `INSERT INTO "Device" ("id", "projectId", "userId", "deviceToken", "provider", "platform", "tags", "createdAt", "updatedAt", "lastSeenAt")
     SELECT gen_random_uuid(), $1::uuid, 'bc-' || (u / 2), 'fcm-token-bc-' || u || '-' || repeat('x', 120), 'fcm', CASE WHEN u % 2 = 0 THEN 'android' ELSE 'ios' END,
            jsonb_build_object('plan', CASE WHEN u % 10 = 0 THEN 'pro' ELSE 'free' END), now(), now(), now()
     FROM generate_series(1, $2::int) u`,
    [s.tenant.projectId, n],
  );
  await s.db.query('VACUUM ANALYZE');
  const pro = { field: 'tags.plan', op: 'eq', value: 'pro' };
  const countStarted = Date.now();
  const count = await api(s.url, 'POST', '/push/audience/count', { apiKey: s.tenant.apiKey, body: { filter: pro }, expect: 200 });
  const countMs = Date.now() - countStarted;
  const worker = await s.startWorker();
  await sleep(1000);
  console.log(`Herald delivery benchmark (broadcast): ${fmt(n)} devices seeded in Postgres; a broadcast to all of them, then one to the 10 % tagged plan=pro`);
  const m = await meter(s, worker);
  const apiRss = { peak: rssMiB(s.apiPid) };
  const apiSampler = setInterval(() => (apiRss.peak = Math.max(apiRss.peak, rssMiB(s.apiPid))), 200);
  const started = Date.now();
  await api(s.url, 'POST', '/push/broadcast', { apiKey: s.tenant.apiKey, body: { templateId: s.tenant.templateId, variables: { order: '#1', name: 'there' }, audience: { all: true } }, expect: 202 });
  const acceptedMs = Date.now() - started;
  let firstAt = 0;
  const progress = planningProgress(s, n, started);
  await waitForEmulator(s, n, worker, (accepted) => {
    if (accepted > 0 && !firstAt) firstAt = Date.now() - started;
  });
  const seconds = (Date.now() - started) / 1000;
  const planned = await progress.stop();
  await waitForFinal(s.db, 1);
  await s.emulator.clear();
  const filteredStarted = Date.now();
  await api(s.url, 'POST', '/push/broadcast', { apiKey: s.tenant.apiKey, body: { templateId: s.tenant.templateId, variables: { order: '#2', name: 'there' }, audience: { filter: pro } }, expect: 202 });
  await waitForEmulator(s, count.devices, worker);
  const filteredSeconds = (Date.now() - filteredStarted) / 1000;
  await waitForFinal(s.db, 2);
  clearInterval(apiSampler);
  const { cpu, rss, statements, statementTimes, redisCommands } = await m.stop();
  const pages = await explainPages(s, pro as AudienceFilter, count.devices);
  return {
    title: 'broadcast (all)',
    worker,
    notifications: 2,
    deliveries: n,
    seconds,
    rateLine: `${fmt(n / seconds)} deliveries/s (202 after ${acceptedMs} ms; first message at the emulator after ${(firstAt / 1000).toFixed(2)} s; last after ${seconds.toFixed(2)} s)`,
    cpu,
    statements,
    statementTimes,
    redisCommands,
    rss,
    extra: [
      `count of the 10 % filter: ${fmt(count.devices)} devices in ${countMs} ms (through the API)`,
      `broadcast to the 10 % filter: ${fmt(count.devices)} deliveries in ${filteredSeconds.toFixed(2)} s (${fmt(count.devices / filteredSeconds)}/s)`,
      `planned (fan-out) / delivered, by tenth of the deliveries: ${planned.tenths.join(', ')}`,
      `fan-out:                every page planned after ${planned.fannedOutAt ? `${(planned.fannedOutAt / 1000).toFixed(2)} s (${fmt(n / (planned.fannedOutAt / 1000))} devices/s)` : 'the end'}`,
      `API RSS peak:           ${apiRss.peak.toFixed(0)} MiB`,
      ...pages,
      `(CPU, statements and Redis commands below cover both broadcasts: ${fmt(n + count.devices)} deliveries; "per delivery" divides by the first's ${fmt(n)})`,
    ],
  };
}

/** Pages of the fan-out as the worker reads them, for a page of 1,000 (apps/worker/src/container.ts). */
const FAN_OUT_PAGE_SIZE = 1000;

/**
 * A page of the 10 % filter from the middle of the ids, as the fan-out reads it (an id window that
 * holds about a page of matches) and as a plain keyset page would: EXPLAIN ANALYZE with BUFFERS, under
 * the worker's planner settings, and the Device rows each read, kept and dropped.
 */
async function explainPages(s: Stack, filter: AudienceFilter, matches: number): Promise<string[]> {
  const from = 1n << 127n;
  const after = bigIntToUuid(from);
  // A page's worth of matches; past the last id when the audience is smaller than two pages (a small run).
  const end = from + ((1n << 128n) * BigInt(FAN_OUT_PAGE_SIZE)) / BigInt(Math.max(matches, 1));
  const before = end < 1n << 128n ? bigIntToUuid(end) : undefined;
  const lines: string[] = [];
  await s.db.query('SET enable_seqscan = off; SET random_page_cost = 1.1');
  for (const [label, options] of [
    ['id window (the fan-out)', { after, before }],
    ['plain keyset page', { after }],
  ] as const) {
    const statement = audiencePageStatement(s.tenant.projectId, filter, { ...options, limit: FAN_OUT_PAGE_SIZE, columns: ['id', 'userId', 'platform'] });
    const { rows } = await s.db.query({ text: `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${statement.text}`, values: statement.values });
    const root = rows[0]['QUERY PLAN'][0];
    const nodes: Record<string, any>[] = [];
    const walk = (node: Record<string, any>) => (nodes.push(node), (node.Plans ?? []).forEach(walk));
    walk(root.Plan);
    const device = nodes.filter((n) => n['Relation Name'] === 'Device');
    const kept = device.reduce((sum, n) => sum + n['Actual Rows'], 0);
    const dropped = device.reduce((sum, n) => sum + (n['Rows Removed by Filter'] ?? 0) + (n['Rows Removed by Index Recheck'] ?? 0), 0);
    const buffers = root.Plan['Shared Hit Blocks'] + root.Plan['Shared Read Blocks'];
    const shape = nodes.map((n) => n['Node Type'] + (n['Index Name'] ? ` ${n['Index Name']}` : '')).join(' > ');
    lines.push(`page of the 10 % filter, ${label}: ${fmt(kept)} devices kept, ${fmt(dropped)} read and dropped, ${fmt(buffers)} buffers, ${root['Execution Time'].toFixed(1)} ms (${shape})`);
  }
  await s.db.query('RESET enable_seqscan; RESET random_page_cost');
  return lines;
}

/**
 * How far the fan-out had planned when each tenth of the broadcast's deliveries had reached the
 * emulator, and when it planned its last page: whether planning or sending is the limit.
 */
function planningProgress(s: Stack, total: number, started: number) {
  const tenths: string[] = [];
  let fannedOutAt = 0;
  /** The look under way, if any: one at a time, and the last one after it. */
  let looking: Promise<void> | undefined;
  const look = async () => {
    try {
      const [{ rows }, { accepted }] = await Promise.all([
        s.db.query(`SELECT "devices", "fannedOut" FROM "Notification" WHERE "audience" IS NOT NULL ORDER BY "createdAt" DESC LIMIT 1`),
        s.emulator.stats(),
      ]);
      if (!rows[0]) return;
      if (rows[0].fannedOut && !fannedOutAt) fannedOutAt = Date.now() - started;
      while (tenths.length < 10 && accepted >= ((tenths.length + 1) * total) / 10) {
        tenths.push(`${((Date.now() - started) / 1000).toFixed(1)} s ${pct(rows[0].devices / total).replace(' ', '')}`);
      }
    } finally {
      looking = undefined;
    }
  };
  const timer = setInterval(() => void (looking ??= look().catch(() => undefined)), 250);
  return {
    async stop() {
      clearInterval(timer);
      await looking;
      await look();
      return { tenths, fannedOutAt };
    },
  };
}

/** N one-user sends (one device each) accepted while no worker runs, then drained. */
async function oneUser(s: Stack): Promise<Measured> {
  const n = Number(args.notifications);
  await s.db.query(
    `INSERT INTO "Device" ("id", "projectId", "userId", "deviceToken", "provider", "platform", "createdAt", "updatedAt", "lastSeenAt")
     SELECT gen_random_uuid(), $1::uuid, 'one-' || u, 'fcm-token-one-' || u || '-' || repeat('x', 120), 'fcm', 'android', now(), now(), now()
     FROM generate_series(1, $2::int) u`,
    [s.tenant.projectId, n],
  );
  console.log(`Herald delivery benchmark (one-user): ${fmt(n)} sends to one user with one device each, accepted while the worker is stopped, then drained`);
  const acceptStarted = Date.now();
  let next = 1;
  const sendLoop = async () => {
    while (next <= n) {
      const u = next++;
      await api(s.url, 'POST', '/push/send', { apiKey: s.tenant.apiKey, body: { userId: `one-${u}`, templateId: s.tenant.templateId, variables: { order: `#${u}`, name: 'there' } }, expect: 202 });
    }
  };
  await Promise.all(Array.from({ length: Number(args.clients) }, sendLoop));
  console.log(`accepted ${fmt(n)} sends in ${((Date.now() - acceptStarted) / 1000).toFixed(2)} s (${fmt(n / ((Date.now() - acceptStarted) / 1000))}/s)`);
  await settle(s.db);

  const started = Date.now();
  const worker = await s.startWorker();
  const ready = Date.now();
  const m = await meter(s, worker);
  // When the first message reached the emulator: what the worker's start (Node, its modules, its
  // connections) took before the drain proper.
  let firstAt = 0;
  const { value: lastReceipt, lines: postgres } = await postgresActivity(s.db, s.databaseUrl, async () => {
    await waitForEmulator(s, n, worker, (accepted) => {
      if (accepted > 0 && !firstAt) firstAt = Date.now();
    });
    const receipt = Date.now();
    await waitForFinal(s.db, n);
    return receipt;
  });
  const seconds = (Date.now() - started) / 1000;
  const { cpu, rss, statements, redisCommands } = await m.stop();
  const wrong = await s.db.query(`SELECT count(*)::int AS n FROM "Notification" n WHERE ${RECENT('n')} AND (n."status" <> 'completed' OR n."sent" <> 1 OR n."devices" <> 1)`);
  // Sends the API admitted together share a deliver job (a send admitted alone has its own): a job's
  // fixed cost in the worker is paid once per job, so the drain depends on how the sends arrived.
  const jobs = (await s.db.query(`SELECT count(DISTINCT coalesce(n."jobId", n."id"::text))::int AS n FROM "Notification" n WHERE ${RECENT('n')}`)).rows[0].n as number;
  return {
    title: 'one-user',
    worker,
    notifications: n,
    deliveries: n,
    seconds,
    rateLine: `${fmt(n / seconds)} notifications/s drained (worker start → every notification final in ${seconds.toFixed(2)} s; last receipt after ${((lastReceipt - started) / 1000).toFixed(2)} s)`,
    cpu,
    statements,
    redisCommands,
    rss,
    extra: [
      `deliver jobs:           ${fmt(jobs)} for ${fmt(n)} notifications (${(n / jobs).toFixed(1)} per job: sends accepted together share one)`,
      `progress (s):           worker ready after ${((ready - started) / 1000).toFixed(2)}, first delivery after ${((firstAt - started) / 1000).toFixed(2)}; from the first delivery to the last ${lastReceipt > firstAt ? `${fmt((n - 1) / ((lastReceipt - firstAt) / 1000))} notifications/s` : 'within one look at the emulator (20 ms)'}`,
      ...(wrong.rows[0].n ? [`!! ${wrong.rows[0].n} notifications are not completed with one sent delivery`] : []),
      ...postgres,
    ],
  };
}

/** Sends paced at --rate/s for --seconds, each to its own device; POST → emulator receipt. */
async function latency(s: Stack): Promise<Measured> {
  const rate = Number(args.rate);
  // Sends of the warm-up (at the same rate, before the measured ones) are delivered but not counted.
  const warm = Math.ceil(rate * Number(args.warmup ?? 0));
  const n = warm + Math.ceil(rate * Number(args.seconds));
  await s.db.query(
    `INSERT INTO "Device" ("id", "projectId", "userId", "deviceToken", "provider", "platform", "createdAt", "updatedAt", "lastSeenAt")
     SELECT gen_random_uuid(), $1::uuid, 'lat-' || u, 'lat-' || u, 'fcm', 'android', now(), now(), now()
     FROM generate_series(1, $2::int) u`,
    [s.tenant.projectId, n],
  );
  await settle(s.db);
  const worker = await s.startWorker();
  await sleep(1000);
  console.log(`Herald delivery benchmark (latency): ${fmt(n - warm)} one-user sends paced at ${rate}/s for ${args.seconds} s${warm ? `, after ${fmt(warm)} warm-up sends at the same rate (not counted)` : ''}`);
  // Measures the counted sends only: from the first of them (after the warm-up) to the end.
  let m = warm ? undefined : await meter(s, worker);
  const sentAt = new Array<number>(n + 1);
  const answeredIn: number[] = [];
  // A backend's connection pool (as in bench:api's paced runs): a send waits for a free connection,
  // and its time counts from when it was due.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 50 });
  const started = Date.now();
  let measuredFrom = started;
  const inFlight = new Set<Promise<unknown>>();
  let errors = 0;
  let maxLag = 0;
  for (let i = 1; i <= n; i++) {
    const due = started + ((i - 1) * 1000) / rate;
    const wait = due - Date.now();
    if (wait > 1) await sleep(wait);
    if (!m && i > warm) {
      m = await meter(s, worker);
      measuredFrom = Date.now();
    }
    if (i > warm && i % Math.max(1, Math.round(rate)) === 0) {
      const { accepted } = await s.emulator.stats();
      maxLag = Math.max(maxLag, i - accepted);
    }
    // Counted from when it was due: a load generator that fell behind does not hide the wait.
    sentAt[i] = Math.round(due);
    const body = JSON.stringify({ userId: `lat-${i}`, templateId: s.tenant.templateId, variables: { order: `#${i}`, name: 'there' } });
    const p = post(agent, `${s.url}/push/send`, s.tenant.apiKey, body).then(
      (status) => (status !== 202 ? errors++ : i > warm ? answeredIn.push(Date.now() - sentAt[i]) : 0),
      () => errors++,
    );
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  }
  const pacedFor = (Date.now() - started) / 1000 - warm / rate;
  await Promise.all(inFlight);
  agent.destroy();
  await waitForEmulator(s, n - errors, worker);
  const seconds = (Date.now() - measuredFrom) / 1000;
  await waitForFinal(s.db, n - errors);
  // (No counted sends at all with --seconds 0: an empty measurement.)
  const { cpu, rss, statements, redisCommands } = await (m ?? (await meter(s, worker))).stop();
  const { messages: all } = (await (await fetch(`${s.emulator.origin}/_emulator/messages`)).json()) as { messages: { token: string; receivedAt: number }[] };
  const messages = all.filter((msg) => Number(msg.token.slice(4)) > warm);
  const ms = messages.map((msg) => msg.receivedAt - sentAt[Number(msg.token.slice(4))]).sort((a, b) => a - b);
  // The tail ten seconds of sends at a time: a stall shows where it happened (the start, midway, throughout).
  const windows: number[][] = [];
  for (const msg of messages) {
    const i = Number(msg.token.slice(4));
    (windows[Math.floor((i - warm - 1) / (rate * 10))] ??= []).push(msg.receivedAt - sentAt[i]);
  }
  const slowest = messages.map((msg) => [Number(msg.token.slice(4)), msg.receivedAt - sentAt[Number(msg.token.slice(4))]]).sort((a, b) => b[1] - a[1]).slice(0, 5);
  return {
    title: 'latency',
    worker,
    notifications: n - warm,
    deliveries: n - warm,
    seconds,
    rateLine: `${fmt((n - warm) / pacedFor)} sends/s offered for ${pacedFor.toFixed(1)} s (${errors} refused); backlog at most ${maxLag} sends`,
    cpu,
    statements,
    redisCommands,
    rss,
    extra: [
      `POST → emulator receipt: p50 ${percentile(ms, 50)} ms, p99 ${percentile(ms, 99)} ms, max ${ms[ms.length - 1]} ms (${ms.length} messages)`,
      `p99 by 10 s of sends:   ${windows.map((w) => percentile(w.sort((a, b) => a - b), 99)).join(', ')} ms`,
      `slowest:                ${slowest.map(([i, t]) => `send #${i} ${t} ms`).join(', ')} (the first sends of a fresh worker open its FCM session and token)`,
      `POST → 202 answered:     p50 ${percentile(answeredIn.sort((a, b) => a - b), 50)} ms, p99 ${percentile(answeredIn, 99)} ms, max ${answeredIn[answeredIn.length - 1]} ms`,
    ],
  };
}

function report(m: Measured) {
  const { cpu, seconds } = m;
  const share = (ms: number) => `${((ms / 1000 / seconds) * 100).toFixed(0)} %`;
  console.log(`${m.title}:`.padEnd(24) + m.rateLine);
  for (const line of m.extra) console.log(line);
  console.log(`worker CPU:             ${share(cpu.worker)} of one core, ${((cpu.worker * 1000) / m.deliveries).toFixed(0)} µs per delivery`);
  console.log(`Postgres CPU:           ${((cpu.postgres * 1000) / m.notifications).toFixed(0)} µs per notification, ${((cpu.postgres * 1000) / m.deliveries).toFixed(0)} µs per delivery (every backend of the server: other users of this machine count too)`);
  console.log(`Postgres statements:    ${m.statements} in all: ${(m.statements / m.notifications).toPrecision(2)} per notification, ${(m.statements / m.deliveries).toPrecision(2)} per delivery (sent by the worker, BEGIN/COMMIT included)`);
  if (m.statementTimes) {
    const kinds = Object.entries(m.statementTimes).sort((a, b) => b[1][1] - a[1][1]);
    console.log(`Postgres statements by time (sent → answered, the worker's side; count, mean, slowest):`);
    for (const [kind, [count, ms, max]] of kinds.slice(0, 8)) console.log(`  ${fmt(count).padStart(7)} × ${(ms / count).toFixed(1).padStart(7)} ms, max ${max.toFixed(0).padStart(5)} ms  ${kind}`);
  }
  console.log(`Redis commands:         ${(m.redisCommands / m.notifications).toPrecision(3)} per notification (every client's: the API's too while it accepts)`);
  console.log(`worker RSS:             start ${m.rss.start.toFixed(0)} MiB, peak ${m.rss.peak.toFixed(0)} MiB, end ${m.rss.end.toFixed(0)} MiB`);
  console.log(`CPU of one core:        worker ${share(cpu.worker)}, emulator ${share(cpu.emulator)}, postgres ${share(cpu.postgres)}, redis ${share(cpu.redis)}, api ${share(cpu.api)}, steal ${share(cpu.steal)} (2 cores = 200 %); load average now ${loadavg()[0].toFixed(2)}`);
}

/** POST of a JSON body with an API key over `agent`'s kept-alive connections; resolves with the status. */
function post(agent: http.Agent, url: string, apiKey: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-api-key': apiKey } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function waitForEmulator(s: Stack, total: number, worker: Worker, onProgress?: (accepted: number) => void) {
  let last = 0;
  let lastChange = Date.now();
  for (;;) {
    const { accepted } = await s.emulator.stats();
    onProgress?.(accepted);
    if (accepted >= total) return;
    if (accepted !== last) [last, lastChange] = [accepted, Date.now()];
    if (Date.now() - lastChange > 30_000) {
      if (args['worker-log']) writeFileSync(args['worker-log'], worker.output.join(''));
      throw new Error(`stalled at ${accepted}/${total}:\n${worker.output.join('').slice(-3000)}`);
    }
    await sleep(20);
  }
}

async function waitForFinal(db: Client, count: number) {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const { rows } = await db.query(`SELECT count(*)::int AS n FROM "Notification" WHERE "status" IN ('completed', 'partially_failed', 'failed')`);
    const n = rows[0].n - historyNotifications - earlierNotifications;
    if (n >= count) return;
    if (Date.now() > deadline) throw new Error(`only ${n}/${count} notifications final`);
    await sleep(20);
  }
}

/** VACUUM ANALYZE before measuring, unless --history-fresh asks for the statistics a bulk just written leaves. */
async function settle(db: Client) {
  if (!args['history-fresh']) await db.query('VACUUM ANALYZE');
}

/** The run's own notifications, not the history's (which is a day old at least). */
const RECENT = (n: string) => (measuredSince ? `${n}."createdAt" > to_timestamp(${measuredSince})` : `${n}."createdAt" > now() - interval '12 hours'`);

/** `--after-bulk`: a bulk through a worker of its own, reported, its worker stopped; what follows is measured apart from it. */
async function bulkBefore(s: Stack, deliveries: number) {
  const before = await bulk(s, deliveries);
  report(before);
  await before.worker.stop();
  await s.emulator.clear();
  earlierNotifications = before.notifications;
  measuredSince = Date.now() / 1000;
  console.log(`(the bulk's worker stopped; its figures above are not the drain's)\n`);
}

/** Row updates in the meantime, and how many were HOT (no index touched: the row stayed on its page). */
function hotShare(before: { updated: string; hot: string } | undefined, after: { updated: string; hot: string }) {
  const updates = Number(after.updated) - Number(before?.updated ?? 0);
  const hot = Number(after.hot) - Number(before?.hot ?? 0);
  return `${fmt(updates)} updates, ${updates ? pct(hot / updates) : '0 %'} HOT`;
}

/**
 * What Postgres does while `work` runs: the server's backends sampled every 100 ms (state and wait
 * event, or autovacuum's statement), and the run's tables' dead rows and last analyses before and after.
 */
async function postgresActivity<T>(db: Client, databaseUrl: string, work: () => Promise<T>): Promise<{ value: T; lines: string[] }> {
  const tables = async () =>
    (
      await db.query(
        `SELECT relname, n_live_tup::bigint AS live, n_dead_tup::bigint AS dead, n_mod_since_analyze::bigint AS modified,
           coalesce(greatest(last_analyze, last_autoanalyze)::text, 'never') AS analysed, autovacuum_count + autoanalyze_count AS autoruns,
           n_tup_upd::bigint AS updated, n_tup_hot_upd::bigint AS hot
         FROM pg_stat_user_tables WHERE relname IN ('Delivery', 'Notification', 'Device') ORDER BY relname`,
      )
    ).rows as { relname: string; live: string; dead: string; modified: string; analysed: string; autoruns: string; updated: string; hot: string }[];
  const before = await tables();
  const seen = new Map<string, number>();
  let samples = 0;
  let sampling = true;
  const sampler = (async () => {
    const probe = new Client({ connectionString: databaseUrl });
    await probe.connect();
    while (sampling) {
      const { rows } = await probe.query(
        `SELECT CASE WHEN backend_type = 'autovacuum worker' THEN 'autovacuum: ' || left(query, 60)
                     ELSE backend_type || ' ' || coalesce(state, '-') || ' ' || coalesce(wait_event_type || ':' || wait_event, 'on CPU') END AS what
         FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND (datname = current_database() OR backend_type = 'autovacuum worker')
           AND (state IS DISTINCT FROM 'idle' OR backend_type <> 'client backend')`,
      );
      samples++;
      for (const { what } of rows) seen.set(what, (seen.get(what) ?? 0) + 1);
      await sleep(100);
    }
    await probe.end();
  })();
  const value = await work();
  sampling = false;
  await sampler;
  const after = await tables();
  const lines = [`Postgres meanwhile (${samples} samples of its busy backends, 100 ms apart; mean backends per sample):`];
  for (const [what, n] of [...seen].sort((a, b) => b[1] - a[1]).slice(0, 10)) lines.push(`  ${(n / samples).toFixed(2).padStart(6)}  ${what}`);
  for (const t of after) {
    const b = before.find((x) => x.relname === t.relname);
    lines.push(`  ${t.relname.padEnd(12)} live ${fmt(Number(t.live))}, dead ${fmt(Number(b?.dead ?? 0))} → ${fmt(Number(t.dead))}, changed since analysed ${fmt(Number(b?.modified ?? 0))} → ${fmt(Number(t.modified))}, analysed ${t.analysed}, autovacuum runs ${b?.autoruns ?? 0} → ${t.autoruns}, ${hotShare(b, t)}`);
  }
  return { value, lines };
}

/**
 * N deliveries of history in the tenant's project: final notifications spread over the last 29 days
 * (inside the default retention), half in bulk sends of 1,000 devices, half in one-user sends, their
 * rows as the worker leaves them (sent, a provider message id), then VACUUM ANALYZE.
 */
async function buildHistory(db: Client, projectId: string, templateId: string) {
  const started = Date.now();
  const bulks = Math.floor(HISTORY / 2 / 1000);
  const singles = HISTORY - bulks * 1000;
  const notifications = async (count: number, devices: number, offset: number) =>
    db.query(
      `INSERT INTO "Notification" ("id", "projectId", "templateId", "userIds", "variables", "status", "recipients", "devices", "sent", "bulk", "createdAt", "updatedAt", "completedAt", "enqueuedAt")
       SELECT md5('h' || (i + $5::int))::uuid, $1::uuid, $2::uuid, ARRAY(SELECT 'h' || (i + $5::int) || '-' || k FROM generate_series(1, greatest($4::int / 2, 1)) AS k), '{"order":"#1","name":"there"}',
         'completed', greatest($4::int / 2, 1), $4::int, $4::int, $4::int > 1, t, t, t + interval '2 seconds', t
       FROM generate_series(1, $3::int) AS i, LATERAL (SELECT now() - interval '1 day' - (i * 28 * interval '1 day') / $3::int AS t) AS at`,
      [projectId, templateId, count, devices, offset],
    );
  await notifications(bulks, 1000, 0);
  await notifications(singles, 1, bulks);
  // Deliveries in slices of about 200,000, each its own statement.
  const total = bulks + singles;
  for (let from = 1; from <= total; from = from <= bulks ? Math.min(from + 200, bulks + 1) : from + 200_000) {
    await db.query(
      `INSERT INTO "Delivery" ("id", "notificationId", "userId", "deviceId", "platform", "status", "providerConfigId", "providerMessageId", "attempts", "createdAt", "updatedAt")
       SELECT herald_uuid_v7(), n."id", 'h' || i || '-' || ((d + 1) / 2), gen_random_uuid(), CASE WHEN d % 2 = 0 THEN 'android' ELSE 'ios' END, 'sent',
         md5('provider')::uuid, 'projects/bench/messages/0:' || md5(n."id"::text || d), 0, n."createdAt", n."completedAt"
       FROM generate_series($1::int, least($1::int + $3::int - 1, $2::int)) AS i
       JOIN "Notification" n ON n."id" = md5('h' || i)::uuid
       CROSS JOIN LATERAL generate_series(1, n."devices") AS d`,
      [from, from <= bulks ? bulks : total, from <= bulks ? 200 : 200_000],
    );
  }
  historyNotifications = total;
  await settle(db);
  const { rows } = await db.query(`SELECT pg_size_pretty(pg_total_relation_size('"Delivery"')) AS size, (SELECT count(*) FROM "Delivery")::int AS n`);
  console.log(`history: ${fmt(rows[0].n)} deliveries of ${fmt(total)} notifications over 29 days (Delivery ${rows[0].size} with its indexes), written${args['history-fresh'] ? ' (not analysed)' : ' and analysed'} in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
}

/** The project's overview, as the dashboard reads it, over the history: the median and the slowest of 20 reads. */
async function timeOverview(url: string, projectId: string, token: string) {
  const ms: number[] = [];
  for (let i = 0; i < 20; i++) {
    const t = performance.now();
    await api(url, 'GET', `/projects/${projectId}/overview`, { token, expect: 200 });
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  console.log(`overview:               p50 ${percentile(ms, 50).toFixed(1)} ms, max ${ms[ms.length - 1].toFixed(1)} ms (20 reads, with ${fmt(HISTORY)} deliveries of history)`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
