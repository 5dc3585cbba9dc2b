import { startPipeline, unique, waitUntil, type Pipeline } from '@herald/testing';

/**
 * RETENTION_DAYS: a worker's retention job deletes final notifications (with their deliveries) and
 * webhook events (with their attempts) older than that, and nothing else. A database of its own:
 * the purge looks at every project.
 */
let p: Pipeline;
beforeAll(async () => {
  p = await startPipeline({ RETENTION_DAYS: '7', SWEEP_INTERVAL_MS: '300' }, {}, { ownDatabase: true });
}, 60_000);
afterAll(() => p.close());

const DAY = 86_400_000;
const daysAgo = (d: number) => new Date(Date.now() - d * DAY);

it('deletes final notifications and settled webhook events older than RETENTION_DAYS, and keeps the rest', async () => {
  const t = await p.project();
  const db = p.h.db;
  const notification = (createdAt: Date, status: 'completed' | 'canceled' | 'scheduled', extra: object = {}) =>
    db.notification.create({
      data: { projectId: t.project.id, templateId: t.templateId, userIds: ['u1'], variables: {}, recipients: 1, devices: 2, sent: 2, status, createdAt, completedAt: status === 'scheduled' ? null : createdAt, ...extra },
    });
  const withDeliveries = async (n: { id: string }) => {
    await db.delivery.createMany({ data: [0, 1].map(() => ({ notificationId: n.id, userId: 'u1', deviceId: crypto.randomUUID(), platform: 'android', status: 'sent' as const })) });
    return n;
  };
  const oldCompleted = await withDeliveries(await notification(daysAgo(8), 'completed'));
  const oldCanceled = await notification(daysAgo(30), 'canceled');
  // Not final, however old: scheduled for tomorrow.
  const oldScheduled = await notification(daysAgo(8), 'scheduled', { sendAt: new Date(Date.now() + DAY) });
  const recent = await withDeliveries(await notification(daysAgo(6), 'completed'));

  const endpoint = await db.webhookEndpoint.create({ data: { projectId: t.project.id, url: 'https://hooks.example.com/h', events: ['notification.completed'], enabled: false, secret: 'sealed', keyId: 'k1' } });
  const event = async (createdAt: Date, status: 'succeeded' | 'failed' | 'pending') => {
    const e = await db.webhookEvent.create({ data: { projectId: t.project.id, type: 'notification.completed', body: '{}', dedupeKey: unique('e'), createdAt } });
    await db.webhookDelivery.create({ data: { endpointId: endpoint.id, eventId: e.id, status, nextAttemptAt: status === 'pending' ? new Date(Date.now() + DAY) : null } });
    return e;
  };
  const oldSucceeded = await event(daysAgo(8), 'succeeded');
  const oldFailed = await event(daysAgo(9), 'failed');
  // An attempt still to come keeps its event.
  const oldPending = await event(daysAgo(8), 'pending');
  const recentEvent = await event(daysAgo(1), 'succeeded');

  await p.startWorker();
  await waitUntil(
    async () => (await db.webhookEvent.count({ where: { id: { in: [oldSucceeded.id, oldFailed.id] } } })) === 0 && !(await db.notification.findUnique({ where: { id: oldCompleted.id } })),
    20_000,
    'the old rows to be purged',
    200,
  );

  const of = (rows: { id: string }[]) => ({ where: { id: { in: rows.map((r) => r.id) } }, select: { id: true } });
  const ids = (rows: { id: string }[]) => rows.map((r) => r.id).sort();
  expect(ids(await db.notification.findMany(of([oldCompleted, oldCanceled, oldScheduled, recent])))).toEqual(ids([oldScheduled, recent]));
  // The deleted notification's delivery rows went with it; the kept one's are there.
  expect(await db.delivery.count({ where: { notificationId: oldCompleted.id } })).toBe(0);
  expect(await db.delivery.count({ where: { notificationId: recent.id } })).toBe(2);
  expect(ids(await db.webhookEvent.findMany(of([oldSucceeded, oldFailed, oldPending, recentEvent])))).toEqual(ids([oldPending, recentEvent]));
  expect(await db.webhookDelivery.count({ where: { eventId: { in: [oldSucceeded.id, oldFailed.id] } } })).toBe(0);
  expect(await db.webhookDelivery.count({ where: { eventId: { in: [oldPending.id, recentEvent.id] } } })).toBe(2);
  // To the API, a purged notification is gone.
  expect((await p.h.get(`/push/notifications/${oldCompleted.id}`, { apiKey: t.apiKey.key })).status).toBe(404);
  expect((await p.h.get(`/push/notifications/${recent.id}`, { apiKey: t.apiKey.key })).status).toBe(200);
}, 60_000);
