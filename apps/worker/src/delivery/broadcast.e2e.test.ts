import { startPipeline, unique, waitUntil, type Pipeline } from '@herald/testing';

/**
 * Broadcasts end to end: API → Postgres + Redis → workers (child processes) → FCM emulator. The
 * audience's devices are seeded directly in Postgres (registering 10,000 through the API would only
 * slow the test down); everything after the 202 is the real pipeline.
 */
let p: Pipeline;
beforeAll(async () => {
  p = await startPipeline({ WORKER_CONCURRENCY: '4' });
}, 60_000);
afterAll(() => p.close());

type Tenant = Awaited<ReturnType<Pipeline['project']>>;

/** `count` android devices of `count / perUser` users, with tokens `<tokenPrefix>-<i>` and the tag `plan`: every tenth one `pro`. */
async function seed(t: Tenant, count: number, tokenPrefix = unique('b'), perUser = 2) {
  const devices = Array.from({ length: count }, (_, i) => ({
    projectId: t.project.id,
    userId: `${tokenPrefix}-u${Math.floor(i / perUser)}`,
    deviceToken: `${tokenPrefix}-${i}`,
    provider: 'fcm',
    platform: 'android',
    tags: { plan: i % 10 === 0 ? 'pro' : 'free' },
  }));
  for (let i = 0; i < devices.length; i += 5000) await p.h.db.device.createMany({ data: devices.slice(i, i + 5000) });
  return devices.map((d) => d.deviceToken);
}

const broadcast = async (t: Tenant, body: Record<string, unknown>) => {
  const res = await p.h.post('/push/broadcast', { apiKey: t.apiKey.key, body: { templateId: t.templateId, variables: { name: 'all', count: 1 }, ...body } });
  expect(res.status).toBe(202);
  return res.body as { notificationId: string; status: string; audience?: unknown };
};

/** How often the emulator received each of these tokens. */
const receivedBy = (tokens: string[]) => {
  const wanted = new Set(tokens);
  const counts = new Map<string, number>();
  for (const m of p.emulator.received()) if (wanted.has(m.token!)) counts.set(m.token!, (counts.get(m.token!) ?? 0) + 1);
  return counts;
};

it('delivers a 10,000-device broadcast to every device exactly once, and shows its progress', async () => {
  const worker = await p.startWorker();
  const t = await p.project();
  const tokens = await seed(t, 10_000);
  const accepted = await broadcast(t, { audience: { all: true } });
  expect(accepted).toEqual({ notificationId: expect.any(String), status: 'queued' });

  const n = await p.waitForNotification(t.apiKey.key, accepted.notificationId, 90_000);
  expect(n).toMatchObject({
    status: 'completed',
    audience: { all: true },
    stats: { recipients: 0, devices: 10_000, sent: 10_000, failed: 0, invalidTokensRemoved: 0 },
    progress: { planned: 10_000, sent: 10_000, failed: 0, pending: 0, fannedOut: true },
  });
  // Its deliveries a page at a time: 100 by default, then the next page after the cursor.
  expect(n.deliveries).toHaveLength(100);
  expect(n.nextDeliveriesAfter).toBe(n.deliveries[99].deviceId);
  const next = await p.h.get(`/push/notifications/${accepted.notificationId}?deliveriesLimit=1000&deliveriesAfter=${n.nextDeliveriesAfter}`, { apiKey: t.apiKey.key });
  expect(next.status).toBe(200);
  expect(next.body.deliveries).toHaveLength(1000);
  expect(next.body.deliveries[0].deviceId > n.nextDeliveriesAfter).toBe(true);

  const counts = receivedBy(tokens);
  expect(counts.size).toBe(10_000);
  expect([...counts.values()].every((c) => c === 1)).toBe(true);
  const rows = await p.h.db.delivery.groupBy({ by: ['deviceId'], where: { notificationId: accepted.notificationId }, _count: true });
  expect(rows).toHaveLength(10_000);
  expect(rows.every((r) => r._count === 1)).toBe(true);
  await worker.stop('SIGTERM');
}, 120_000);

it('sends a filtered broadcast to the matching devices only; a dry run answers the count', async () => {
  const worker = await p.startWorker();
  const t = await p.project();
  const tokens = await seed(t, 1000);
  const filter = { field: 'tags.plan', op: 'eq', value: 'pro' };

  const dry = await broadcast(t, { audience: { filter }, dryRun: true });
  expect(dry.audience).toEqual({ devices: 100, users: 100, byPlatform: { android: 100, ios: 0, web: 0 } });
  const validated = await p.waitForNotification(t.apiKey.key, dry.notificationId, 30_000);
  expect(validated).toMatchObject({ status: 'completed', dryRun: true, stats: { devices: 100, sent: 100 } });
  expect(receivedBy(tokens).size).toBe(0);

  const seg = await p.h.post(`/projects/${t.project.id}/segments`, { token: t.owner.accessToken, body: { name: unique('pro'), filter } });
  expect(seg.status).toBe(201);
  const accepted = await broadcast(t, { audience: { segmentId: seg.body.id } });
  const n = await p.waitForNotification(t.apiKey.key, accepted.notificationId, 30_000);
  expect(n).toMatchObject({ status: 'completed', audience: { segmentId: seg.body.id, filter }, stats: { devices: 100, sent: 100 } });
  const counts = receivedBy(tokens);
  expect([...counts.keys()].sort()).toEqual(tokens.filter((_, i) => i % 10 === 0).sort());
  await worker.stop('SIGTERM');
}, 60_000);

it('ends a broadcast whose audience matches no device as failed, with the reason', async () => {
  const worker = await p.startWorker();
  const t = await p.project();
  await seed(t, 10);
  const accepted = await broadcast(t, { audience: { filter: { field: 'tags.plan', op: 'eq', value: 'enterprise' } } });
  const n = await p.waitForNotification(t.apiKey.key, accepted.notificationId, 30_000);
  expect(n).toMatchObject({ status: 'failed', error: 'The audience matches no device', stats: { devices: 0, sent: 0, failed: 0 }, progress: { planned: 0, pending: 0, fannedOut: true } });
  await worker.stop('SIGTERM');
}, 60_000);

it('cancel mid-fan-out stops the pages not yet sent', async () => {
  const worker = await p.startWorker();
  const t = await p.project();
  const tokens = await seed(t, 3000);
  // 12,000 a minute: the pages of 1,000 devices are due 5 s apart.
  const accepted = await broadcast(t, { audience: { all: true }, ratePerMinute: 12_000 });
  await waitUntil(() => receivedBy(tokens).size >= 1000, 20_000, () => `the first page (${receivedBy(tokens).size} so far)`, 50);
  const cancel = await p.h.post(`/push/notifications/${accepted.notificationId}/cancel`, { apiKey: t.apiKey.key });
  expect(cancel.status).toBe(200);
  expect(cancel.body.status).toBe('canceled');
  await new Promise((r) => setTimeout(r, 11_000));
  expect(receivedBy(tokens).size).toBe(1000);
  const n = await p.h.get(`/push/notifications/${accepted.notificationId}`, { apiKey: t.apiKey.key });
  expect(n.body).toMatchObject({ status: 'canceled', progress: { planned: 3000 } });
  // A broadcast that ended cannot be canceled again.
  const again = await p.h.post(`/push/notifications/${accepted.notificationId}/cancel`, { apiKey: t.apiKey.key });
  expect(again.status).toBe(409);
  await worker.stop('SIGTERM');
}, 60_000);

it('a fanning worker killed mid-way: a second worker finishes, nothing lost or repeated beyond requests in flight', async () => {
  const t = await p.project();
  // Slow answers (20 ms each), so that the kill lands mid-broadcast.
  const tokens = await seed(t, 3000, unique('slow20'));
  const first = await p.startWorker({ WORKER_CONCURRENCY: '1', DELIVERY_BATCH_SIZE: '50' });
  const accepted = await broadcast(t, { audience: { all: true } });
  await waitUntil(() => receivedBy(tokens).size >= 300, 30_000, () => `300 messages (${receivedBy(tokens).size} so far)\n${first.output.join('')}`, 10);
  await first.stop('SIGKILL');
  expect(receivedBy(tokens).size).toBeLessThan(3000);

  await p.startWorker({ WORKER_CONCURRENCY: '1', DELIVERY_BATCH_SIZE: '50' });
  const n = await p.waitForNotification(t.apiKey.key, accepted.notificationId, 90_000);
  expect(n).toMatchObject({ status: 'completed', stats: { devices: 3000, sent: 3000, failed: 0 } });
  const rows = await p.h.db.delivery.groupBy({ by: ['deviceId'], where: { notificationId: accepted.notificationId }, _count: true });
  expect(rows).toHaveLength(3000);
  expect(rows.every((r) => r._count === 1)).toBe(true);
  const counts = receivedBy(tokens);
  expect(counts.size).toBe(3000);
  expect([...counts.values()].every((c) => c <= 2)).toBe(true);
  expect([...counts.values()].filter((c) => c > 1).length).toBeLessThanOrEqual(100);
}, 150_000);
