import { randomUUID } from 'node:crypto';
import { sqlPool } from '@herald/db';
import { startApi, tenant, type Harness } from '@herald/testing';
import { EMPTY_AUDIENCE, FanOut } from './fan-out';
import { DeliveryRepository, type BroadcastAudience, type NotificationRow } from './repository';

/**
 * The fan-out's statements against a real Postgres: pages in device id order, the cursor written with
 * each page, and a fan-out taken over after its worker died between a page's commit and its job.
 */
let h: Harness;
beforeAll(async () => {
  h = await startApi();
});
afterAll(() => h.close());

type Job = { data: { deliveryIds: string[] }; opts: { jobId: string } };

async function broadcastOf(devices: number, audience: BroadcastAudience, status: 'queued' | 'canceled' = 'queued') {
  const t = await tenant(h);
  await h.db.device.createMany({
    data: Array.from({ length: devices }, (_, i) => ({ projectId: t.project.id, userId: `u${i}`, deviceToken: `fo-${randomUUID()}`, provider: 'fcm', platform: 'ios', tags: { plan: i % 3 === 0 ? 'pro' : 'free' } })),
  });
  const n = await h.db.notification.create({ data: { projectId: t.project.id, templateId: randomUUID(), userIds: [], variables: {}, audience: audience as object, pendingDeliveries: 1, status } });
  const [row] = await new DeliveryRepository(sqlPool(h.db), 30_000).load([n.id]);
  return { t, row: row as NotificationRow };
}

const fanOut = (jobs: Job[], finished: unknown[] = [], failAfter = Infinity) =>
  new FanOut({
    pool: sqlPool(h.db),
    pageSize: 10,
    enqueue: async (job) => {
      if (jobs.length >= failAfter) throw new Error('the worker died');
      jobs.push(job as Job);
    },
    finished: (f) => finished.push(f),
    enqueueHeld: async () => undefined,
  });

it('plans every matching device once, page by page, and keeps one pending delivery for itself until the last page', async () => {
  const { row } = await broadcastOf(35, { filter: { field: 'tags.plan', op: 'eq', value: 'pro' } });
  const jobs: Job[] = [];
  await fanOut(jobs).run(row);
  // 12 of 35 devices are pro: pages of at most 10, read in id windows (a filtered audience: audience-window.ts);
  // the window that reaches the end of the ids with fewer than 10 ends the fan-out.
  const sizes = jobs.map((j) => j.data.deliveryIds.length);
  expect(sizes.every((size) => size > 0 && size <= 10)).toBe(true);
  expect(sizes.reduce((a, b) => a + b, 0)).toBe(12);
  const n = await h.db.notification.findUniqueOrThrow({ where: { id: row.id } });
  expect(n).toMatchObject({ status: 'processing', devices: 12, pendingDeliveries: 12, fannedOut: true });
  const rows = await h.db.delivery.findMany({ where: { notificationId: row.id } });
  expect(rows).toHaveLength(12);
  // Run again (its job re-run): nothing more is planned.
  await fanOut(jobs).run(row);
  expect(await h.db.delivery.count({ where: { notificationId: row.id } })).toBe(12);
});

it('a fan-out taken over after its worker died between a page and its job loses and repeats nothing', async () => {
  const { row } = await broadcastOf(45, { all: true });
  const jobs: Job[] = [];
  // The first worker queues two pages, writes the third, and dies before queuing it.
  await expect(fanOut(jobs, [], 2).run(row)).rejects.toThrow('the worker died');
  expect(jobs).toHaveLength(2);
  const mid = await h.db.notification.findUniqueOrThrow({ where: { id: row.id } });
  expect(mid).toMatchObject({ devices: 30, fannedOut: false });

  await fanOut(jobs).run(row);
  // The third page is queued again under its own id, then pages four and five.
  expect(jobs.map((j) => j.data.deliveryIds.length)).toEqual([10, 10, 10, 10, 5]);
  expect(new Set(jobs.map((j) => j.opts.jobId)).size).toBe(5);
  const ids = jobs.flatMap((j) => j.data.deliveryIds);
  expect(new Set(ids).size).toBe(45);
  const rows = await h.db.delivery.groupBy({ by: ['deviceId'], where: { notificationId: row.id }, _count: true });
  expect(rows).toHaveLength(45);
  expect(await h.db.notification.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({ devices: 45, pendingDeliveries: 45, fannedOut: true });
});

it('an empty audience ends the notification failed with the reason, reported once', async () => {
  const { t, row } = await broadcastOf(5, { filter: { field: 'tags.plan', op: 'eq', value: 'enterprise' } });
  const finished: unknown[] = [];
  await fanOut([], finished).run(row);
  expect(finished).toEqual([{ notificationId: row.id, projectId: t.project.id, status: 'failed' }]);
  expect(await h.db.notification.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({ status: 'failed', error: EMPTY_AUDIENCE, pendingDeliveries: 0, devices: 0 });
});

it('plans nothing for a canceled broadcast', async () => {
  const { row } = await broadcastOf(5, { all: true }, 'canceled');
  const jobs: Job[] = [];
  await fanOut(jobs).run(row);
  expect(jobs).toEqual([]);
  expect(await h.db.delivery.count({ where: { notificationId: row.id } })).toBe(0);
});

it('a filtered fan-out (read in id windows) taken over mid-way loses and repeats nothing', async () => {
  const { row } = await broadcastOf(60, { filter: { field: 'tags.plan', op: 'eq', value: 'pro' } });
  const jobs: Job[] = [];
  // The first worker queues one page, writes the next, and dies before queuing it.
  await expect(fanOut(jobs, [], 1).run(row)).rejects.toThrow('the worker died');
  await fanOut(jobs).run(row);
  const ids = jobs.flatMap((j) => j.data.deliveryIds);
  expect(new Set(jobs.map((j) => j.opts.jobId)).size).toBe(jobs.length);
  expect(new Set(ids).size).toBe(ids.length);
  expect(ids).toHaveLength(20);
  expect(await h.db.delivery.count({ where: { notificationId: row.id } })).toBe(20);
  expect(await h.db.notification.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({ devices: 20, pendingDeliveries: 20, fannedOut: true });
});
