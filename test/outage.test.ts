import { STATUS_CODES } from 'node:http';
import { ensureDatabase, migrate } from '@herald/db';
import { unique, type ApiResponse } from './harness';
import { startPipeline, type Pipeline } from './pipeline';
import { startPostgres, startRedis, type PrivatePostgres, type PrivateRedis } from './services';
import { waitUntil } from './wait';

/**
 * Real outages: the API (in this process) and a worker (a child process) run against a PRIVATE
 * Postgres and a PRIVATE Redis, which the tests stop and start again. While a dependency is down,
 * requests that need it answer 503 within 5 s and /ready names it; when it returns, the API and the
 * worker recover by themselves, and work accepted before or during the outage is delivered, once.
 */
jest.setTimeout(120_000);

let pg: PrivatePostgres;
let redis: PrivateRedis;
let p: Pipeline;

beforeAll(async () => {
  [pg, redis] = await Promise.all([startPostgres(), startRedis()]);
  const databaseUrl = pg.url('herald');
  await ensureDatabase(databaseUrl);
  await migrate(databaseUrl);
  const env = { DATABASE_URL: databaseUrl, REDIS_URL: redis.url };
  p = await startPipeline(env, env);
  await p.startWorker();
}, 90_000);

afterAll(async () => {
  // Dependencies first back up, so that the API and the worker shut down cleanly; then everything goes.
  await Promise.allSettled([pg?.start(), redis?.start()]);
  await p?.close().catch(() => undefined);
  await Promise.allSettled([pg?.close(), redis?.close()]);
});

/** Times a request; docs/api.md#status-codes allows a dependency outage at most 5 s to answer. */
async function timed<T>(request: () => Promise<ApiResponse<T>>) {
  const started = Date.now();
  const res = await request();
  return { res, ms: Date.now() - started };
}

function expectUnavailable(res: ApiResponse, ms: number) {
  expect({ status: res.status, body: res.body }).toEqual({ status: 503, body: { statusCode: 503, message: expect.any(String), error: STATUS_CODES[503] } });
  expect(ms).toBeLessThan(5000);
  expect(res.text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|prisma/i);
}

async function expectNotReady(dependency: 'postgres' | 'redis') {
  const { res, ms } = await timed(() => p.h.get('/ready'));
  expect(ms).toBeLessThan(5000);
  expect(res.status).toBe(503);
  expect(res.body).toMatchObject({ statusCode: 503, error: STATUS_CODES[503], checks: { [dependency]: 'down' } });
  expect(res.body.message).toContain(dependency);
  expect((await p.h.get('/health')).status).toBe(200);
}

/** The API recovered by itself: /ready is green again (polled; reconnects take a moment). */
async function waitForReady() {
  await waitUntil(async () => (await p.h.get('/ready')).status === 200, 30_000, '/ready to answer 200 again');
  expect((await p.h.get('/ready')).body).toEqual({ status: 'ok', checks: { postgres: 'up', redis: 'up' } });
}

/** Retries a request until it is accepted: the first ones after a restart may still meet a reconnecting pool. */
async function eventually(request: () => Promise<ApiResponse>, status: number) {
  let last: ApiResponse | undefined;
  await waitUntil(
    async () => {
      last = await request();
      return last.status === status;
    },
    30_000,
    `a ${status}`,
    250,
  );
  return last!;
}

/** Herald's records after the fact: every device of the notification got exactly one `sent` delivery. */
async function expectDeliveredOnce(notificationId: string, tokens: string[]) {
  const rows = await p.h.db.delivery.findMany({ where: { notificationId }, select: { deviceId: true, status: true } });
  const devices = await p.h.db.device.findMany({ where: { id: { in: rows.map((r) => r.deviceId!) } }, select: { id: true, deviceToken: true } });
  const tokenOf = new Map(devices.map((d) => [d.id, d.deviceToken]));
  expect(rows.map((r) => [tokenOf.get(r.deviceId!), r.status]).sort()).toEqual([...tokens].sort().map((token) => [token, 'sent']));
  for (const token of tokens) expect(p.emulator.received({ token }).length).toBeGreaterThanOrEqual(1);
}

/** Until the worker has taken the notification (it is then mid-delivery: its devices are slow). */
const waitForProcessing = (notificationId: string) =>
  waitUntil(async () => (await p.h.db.notification.findUnique({ where: { id: notificationId } }))?.status === 'processing', 15_000, `notification ${notificationId} to be processing`);

/** Keeps a dependency down for at least `ms` in all (past the worker's 2 s job lock), whatever the assertions took. */
async function holdOutage(since: number, ms = 4000) {
  const left = since + ms - Date.now();
  if (left > 0) await new Promise((r) => setTimeout(r, left));
}

async function project() {
  const t = await p.project();
  const send = (userId: string) => () => p.h.post('/push/send', { apiKey: t.apiKey.key, body: { userId, templateId: t.templateId, variables: { name: 'Ada', count: 1 } } });
  return { ...t, send };
}

describe('Redis stops and comes back', () => {
  it('sends answer 503 within 5 s while it is down; afterwards API and worker resume and everything accepted is delivered', async () => {
    const t = await project();
    const fast = unique('fast');
    const slow = unique('slow');
    const fastTokens = [unique('r-a'), unique('r-b')];
    // Slow at "FCM", so that this notification is in flight when Redis stops.
    const slowTokens = [`slow1500-${unique('r')}`, `slow1500-${unique('r')}`];
    await p.registerDevices(t.apiKey.key, [...fastTokens.map((deviceToken) => ({ userId: fast, deviceToken })), ...slowTokens.map((deviceToken) => ({ userId: slow, deviceToken }))]);

    const before = await t.send(fast)();
    expect(before.status).toBe(202);
    expect((await p.waitForNotification(t.apiKey.key, before.body.notificationId)).status).toBe('completed');

    const inFlight = await t.send(slow)();
    const accepted = await t.send(fast)();
    expect([inFlight.status, accepted.status]).toEqual([202, 202]);
    await waitForProcessing(inFlight.body.notificationId);

    // A restart of a Redis with persistence: the queue survives, connections do not.
    await redis.stop({ save: true });
    const down = Date.now();
    try {
      const send = await timed(t.send(fast));
      expectUnavailable(send.res, send.ms);
      const register = await timed(() => p.h.post('/push/register-device', { apiKey: t.apiKey.key, body: { userId: fast, deviceToken: unique('r-c'), provider: 'fcm', platform: 'ios' } }));
      expectUnavailable(register.res, register.ms);
      const bulk = await timed(() => p.h.post('/push/send-bulk', { apiKey: t.apiKey.key, body: { userIds: [fast], templateId: t.templateId, variables: { name: 'x', count: 1 } } }));
      expectUnavailable(bulk.res, bulk.ms);
      await expectNotReady('redis');
      // What needs only Postgres still works.
      expect((await p.h.get(`/push/notifications/${accepted.body.notificationId}`, { apiKey: t.apiKey.key })).status).toBe(200);
      // Nothing half-accepted: the refused send left no notification behind.
      expect(await p.h.db.notification.count({ where: { projectId: t.project.id } })).toBe(3);
      await holdOutage(down);
    } finally {
      await redis.start();
    }

    await waitForReady();
    const after = await eventually(t.send(fast), 202);
    for (const n of [inFlight, accepted, after]) {
      expect((await p.waitForNotification(t.apiKey.key, n.body.notificationId, 45_000)).status).toBe('completed');
    }
    await expectDeliveredOnce(inFlight.body.notificationId, slowTokens);
    await expectDeliveredOnce(accepted.body.notificationId, fastTokens);
    await expectDeliveredOnce(after.body.notificationId, fastTokens);
  });
});

describe('Postgres stops and comes back', () => {
  it('requests answer 503 within 5 s while it is down; afterwards API and worker resume and sends accepted before and after are delivered', async () => {
    const t = await project();
    const fast = unique('fast');
    const slow = unique('slow');
    const fastTokens = [unique('p-a'), unique('p-b')];
    const slowTokens = [`slow1500-${unique('p')}`, `slow1500-${unique('p')}`];
    await p.registerDevices(t.apiKey.key, [...fastTokens.map((deviceToken) => ({ userId: fast, deviceToken })), ...slowTokens.map((deviceToken) => ({ userId: slow, deviceToken }))]);

    // Accepted just before the outage; the slow one is at "FCM" when Postgres goes (its outcome cannot be written).
    const inFlight = await t.send(slow)();
    const accepted = await t.send(fast)();
    expect([inFlight.status, accepted.status]).toEqual([202, 202]);
    await waitForProcessing(inFlight.body.notificationId);

    // Like a crash: no clean shutdown, every connection cut.
    await pg.stop('immediate');
    const down = Date.now();
    try {
      const send = await timed(t.send(fast));
      expectUnavailable(send.res, send.ms);
      const read = await timed(() => p.h.get(`/push/notifications/${accepted.body.notificationId}`, { apiKey: t.apiKey.key }));
      expectUnavailable(read.res, read.ms);
      const me = await timed(() => p.h.get('/auth/me', { token: t.owner.accessToken }));
      expectUnavailable(me.res, me.ms);
      const signin = await timed(() => p.h.post('/auth/signin', { body: { email: t.owner.email, password: t.owner.password } }));
      expectUnavailable(signin.res, signin.ms);
      await expectNotReady('postgres');
      const ready = await p.h.get('/ready');
      expect(ready.body.checks.redis).toBe('up');
      await holdOutage(down);
    } finally {
      await pg.start();
    }

    await waitForReady();
    const after = await eventually(t.send(fast), 202);
    for (const n of [inFlight, accepted, after]) {
      expect((await p.waitForNotification(t.apiKey.key, n.body.notificationId, 60_000)).status).toBe('completed');
    }
    await expectDeliveredOnce(inFlight.body.notificationId, slowTokens);
    await expectDeliveredOnce(accepted.body.notificationId, fastTokens);
    await expectDeliveredOnce(after.body.notificationId, fastTokens);
    // The API still answers everything else normally.
    expect((await p.h.get('/auth/me', { token: t.owner.accessToken })).status).toBe(200);
  });
});
