/**
 * `pnpm soak --minutes N`: Herald under steady sends (one-user and bulk) while a random API or worker
 * is killed with SIGKILL every few seconds and started again, Redis is restarted once and Postgres once.
 * Everything runs on private servers of its own (a Postgres cluster and a Redis started for the soak,
 * the FCM emulator), so restarting them touches nothing else on the machine.
 *
 * Prints accepted, delivered, lost (must be 0), repeated (each must be marked `possiblyDelivered`) and
 * p99 latencies; exits 1 when something was lost or repeated unmarked.
 */
import { ensureDatabase, migrate } from '../packages/db/src/migrate';

// The pipeline's fixtures check their own steps with jest's `expect`; outside jest, `toBe` is enough.
(globalThis as Record<string, unknown>).expect = (actual: unknown) =>
  new Proxy({}, { get: (_, matcher) => (expected: unknown) => {
    if (matcher === 'toBe' && actual !== expected) throw new Error(`soak setup: expected ${String(expected)}, got ${String(actual)}`);
  } });

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const p99 = (values: number[]) => (values.length ? [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * 0.99))] : 0);

async function main() {
  const minutes = arg('minutes', 3);
  const durationMs = minutes * 60_000;
  const { startPostgres, startRedis } = await import('../test/services');
  const [pg, redis] = await Promise.all([startPostgres(), startRedis()]);
  const databaseUrl = pg.url('herald_soak');
  await ensureDatabase(databaseUrl);
  await migrate(databaseUrl);
  Object.assign(process.env, { DATABASE_URL: databaseUrl, REDIS_URL: redis.url, QUEUE_PREFIX: 'soak' });
  const { startPipeline } = await import('../test/pipeline');
  const { unique } = await import('../test/harness');
  const p = await startPipeline({ SWEEP_INTERVAL_MS: '1000' }, { RATE_LIMIT_SEND: '1000000', RATE_LIMIT_SEND_BULK: '1000000' });
  const t = await p.project();
  const prefix = unique('soak');
  const users = Array.from({ length: 500 }, (_, i) => `${prefix}-u${i}`);
  await p.h.db.device.createMany({ data: users.map((userId) => ({ projectId: t.project.id, provider: 'fcm', platform: 'android', userId, deviceToken: `${userId}-tok` })) });

  type Api = Awaited<ReturnType<Pipeline['startApi']>>;
  type Pipeline = typeof p;
  const apis: Api[] = await Promise.all([p.startApi(), p.startApi()]);
  await Promise.all([p.startWorker(), p.startWorker()]);

  const accepted: string[] = [];
  const acceptLatency: number[] = [];
  let refused = 0;
  let running = true;
  const body = (userIds: string[]) => (userIds.length === 1 ? { userId: userIds[0] } : { userIds });
  const send = async (userIds: string[]) => {
    const api = apis[Math.floor(Math.random() * apis.length)];
    const started = Date.now();
    const res = await api
      .post(userIds.length === 1 ? '/push/send' : '/push/send-bulk', { apiKey: t.apiKey.key, body: { ...body(userIds), templateId: t.templateId, variables: { name: 'soak', count: 1 } } })
      .catch(() => undefined);
    if (res?.status === 202) {
      accepted.push(res.body.notificationId);
      acceptLatency.push(Date.now() - started);
    } else refused++;
  };
  const pick = (n: number) => Array.from({ length: n }, () => users[Math.floor(Math.random() * users.length)]).filter((u, i, a) => a.indexOf(u) === i);
  const oneUser = (async () => {
    while (running) await Promise.all([send(pick(1)), sleep(50)]);
  })();
  const bulk = (async () => {
    while (running) await Promise.all([send(pick(25)), sleep(1000)]);
  })();

  const start = Date.now();
  let kills = 0;
  let redisRestarted = false;
  let postgresRestarted = false;
  while (Date.now() - start < durationMs) {
    await sleep(3000 + Math.random() * 2000);
    const elapsed = Date.now() - start;
    if (!redisRestarted && elapsed > durationMs / 3) {
      redisRestarted = true;
      console.log(`[${Math.round(elapsed / 1000)} s] restarting Redis`);
      await redis.stop({ save: true });
      await sleep(1000);
      await redis.start();
      continue;
    }
    if (!postgresRestarted && elapsed > (durationMs * 2) / 3) {
      postgresRestarted = true;
      console.log(`[${Math.round(elapsed / 1000)} s] restarting Postgres`);
      await pg.stop('fast');
      await sleep(1000);
      await pg.start();
      continue;
    }
    kills++;
    if (Math.random() < 0.5) {
      // Sends meanwhile may still pick the dead one: refused, as by a load balancer's stale endpoint.
      const i = Math.floor(Math.random() * apis.length);
      await apis[i].stop('SIGKILL');
      apis[i] = await p.startApi();
    } else {
      const i = Math.floor(Math.random() * p.workers.length);
      const [victim] = p.workers.splice(i, 1);
      await victim.stop('SIGKILL');
      await p.startWorker();
    }
  }
  running = false;
  await Promise.all([oneUser, bulk]);

  // Everything accepted ends final; then the deliveries and what FCM received are compared.
  const deadline = Date.now() + 180_000;
  let open = accepted.length;
  while (Date.now() < deadline) {
    // One array parameter: a 30-minute soak accepts more ids than a statement may have parameters.
    const [{ n }] = await p.h.db.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS "n" FROM "Notification" WHERE "id" = ANY(${accepted}::uuid[]) AND "status" IN ('queued', 'processing')`;
    open = n;
    if (!open) break;
    await sleep(1000);
  }
  const rows = await p.h.db.$queryRaw<{ id: string; status: string; possiblyDelivered: boolean }[]>`
    SELECT "id", "status"::text AS "status", "possiblyDelivered" FROM "Delivery" WHERE "notificationId" = ANY(${accepted}::uuid[])`;
  const notifications = await p.h.db.$queryRaw<{ createdAt: Date; completedAt: Date | null }[]>`
    SELECT "createdAt", "completedAt" FROM "Notification" WHERE "id" = ANY(${accepted}::uuid[])`;
  const received = new Map<string, number>();
  for (const m of p.emulator.received()) {
    const id = (m.message as { data?: Record<string, string> }).data?.herald_delivery_id;
    if (id) received.set(id, (received.get(id) ?? 0) + 1);
  }
  const delivered = rows.filter((r) => r.status === 'sent' && received.has(r.id)).length;
  const lost = rows.filter((r) => !received.has(r.id)).length + open;
  const repeated = rows.filter((r) => (received.get(r.id) ?? 0) > 1);
  const unmarked = repeated.filter((r) => !r.possiblyDelivered).length;
  const deliveryLatency = notifications.filter((n) => n.completedAt).map((n) => n.completedAt!.getTime() - n.createdAt.getTime());
  const report = {
    minutes,
    kills,
    redisRestarted,
    postgresRestarted,
    accepted: accepted.length,
    refused,
    deliveries: rows.length,
    delivered,
    lost,
    repeated: repeated.length,
    repeatedUnmarked: unmarked,
    p99AcceptMs: p99(acceptLatency),
    p99DeliveredMs: p99(deliveryLatency),
  };
  console.log(JSON.stringify(report, null, 2));
  await p.close().catch(() => undefined);
  await Promise.all([redis.close(), pg.close()]).catch(() => undefined);
  process.exit(lost > 0 || unmarked > 0 ? 1 : 0);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
