import { deliverJobId, sharedDeliverJobFor } from '@herald/core';
import { startPipeline, unique, waitUntil, type Pipeline } from '@herald/testing';
import { MAX_REQUEUES } from './sweeper';

/**
 * The sweeper queues lost work again. This pipeline has a database of its own: the sweeper looks at
 * every notification of its database, and other test files' stale rows are not its business.
 */
let p: Pipeline;
beforeAll(async () => {
  p = await startPipeline({}, {}, { ownDatabase: true });
  await p.startWorker();
}, 60_000);
afterAll(() => p.close());

describe('sends scheduled far ahead', () => {
  it('a scheduled send written without a job gets its delayed job from the sweeper and is delivered at its time', async () => {
    const t = await p.project();
    const userId = unique('cust');
    const token = unique('tok');
    await p.registerDevices(t.apiKey.key, [{ userId, deviceToken: token }]);
    // As the API writes a send due later than SCHEDULE_AHEAD_MS, now coming due.
    const sendAt = new Date(Date.now() + 3000);
    const row = await p.h.db.notification.create({
      data: { projectId: t.project.id, templateId: t.templateId, userIds: [userId], variables: { name: 'later', count: 1 }, recipients: 1, status: 'scheduled', sendAt, enqueuedAt: null },
    });
    await waitUntil(async () => !!(await p.h.container.queue.getJob(deliverJobId(row.id))), 10_000, () => 'the sweeper queued its job');
    expect((await p.h.db.notification.findUniqueOrThrow({ where: { id: row.id } })).enqueuedAt).not.toBeNull();
    const n = await p.waitForNotification(t.apiKey.key, row.id);
    expect(n.status).toBe('completed');
    // At its time, not before; and queued by the promotion, not found as lost work.
    const done = await p.h.db.notification.findUniqueOrThrow({ where: { id: row.id } });
    expect(done.completedAt!.getTime()).toBeGreaterThanOrEqual(sendAt.getTime());
    expect(done.requeues).toBe(0);
    expect(p.emulator.received({ token })).toHaveLength(1);
  });
});

describe('lost work', () => {
  it('a notification row whose job was lost is picked up by the sweeper', async () => {
    const t = await p.project();
    const userId = unique('cust');
    const token = unique('tok');
    await p.registerDevices(t.apiKey.key, [{ userId, deviceToken: token }]);
    const row = await p.h.db.notification.create({
      data: { projectId: t.project.id, templateId: t.templateId, userIds: [userId], variables: { name: 'lost', count: 1 }, recipients: 1, createdAt: new Date(Date.now() - 60_000) },
    });
    const n = await p.waitForNotification(t.apiKey.key, row.id);
    expect(n.status).toBe('completed');
    expect(p.emulator.received({ token })).toHaveLength(1);
  });

  it("notifications whose shared job was lost are each queued again on a job of their own; a shared job still waiting is left alone", async () => {
    const t = await p.project();
    const users = [unique('cust'), unique('cust'), unique('cust')];
    const tokens = users.map(() => unique('tok'));
    await p.registerDevices(t.apiKey.key, users.map((userId, i) => ({ userId, deviceToken: tokens[i] })));
    const old = new Date(Date.now() - 60_000);
    const row = (userId: string, jobId: string) =>
      p.h.db.notification.create({ data: { projectId: t.project.id, templateId: t.templateId, userIds: [userId], variables: { name: 'x', count: 1 }, recipients: 1, createdAt: old, jobId } });
    // Accepted together; their job never reached Redis (or Redis lost it).
    const lostJob = `deliver-shared-${unique('lost')}`;
    const lost = [await row(users[0], lostJob), await row(users[1], lostJob)];
    // Its shared job waits (as in a backlog: delayed here, so that it stays put).
    const waitingJob = `deliver-shared-${unique('waiting')}`;
    const waiting = await row(users[2], waitingJob);
    const shared = sharedDeliverJobFor(waitingJob, [waiting.id]);
    await p.h.container.queue.add(shared.name, shared.data, { ...shared.opts, delay: 3600_000 });

    for (const n of lost) {
      expect((await p.waitForNotification(t.apiKey.key, n.id)).status).toBe('completed');
      // The sweep counts its re-queues once it has queued all it found: its job may deliver first.
      const row = () => p.h.db.notification.findUniqueOrThrow({ where: { id: n.id } });
      await waitUntil(async () => (await row()).requeues > 0, 5000, `the sweep's re-queue count of ${n.id}`);
      expect(await row()).toMatchObject({ requeues: 1, jobId: null });
      expect((await p.h.container.queue.getJob(deliverJobId(n.id)))!.data).toEqual({ notificationId: n.id });
    }
    expect(tokens.slice(0, 2).map((token) => p.emulator.received({ token }).length)).toEqual([1, 1]);
    // Swept in the same pass as the lost ones (all three were stale), and seen to have a live job.
    await new Promise((r) => setTimeout(r, 1500));
    expect(await p.h.db.notification.findUniqueOrThrow({ where: { id: waiting.id } })).toMatchObject({ status: 'queued', requeues: 0, jobId: waitingJob });
    expect(await p.h.container.queue.getJob(deliverJobId(waiting.id))).toBeUndefined();
    expect(p.emulator.received({ token: tokens[2] })).toEqual([]);
    // When its turn comes, the shared job delivers it.
    await (await p.h.container.queue.getJob(waitingJob))!.promote();
    expect((await p.waitForNotification(t.apiKey.key, waiting.id)).status).toBe('completed');
    expect(p.emulator.received({ token: tokens[2] })).toHaveLength(1);
  });

  it('a job without a row delivers nothing', async () => {
    const before = p.emulator.stats().sendRequests;
    await p.h.container.queue.add('deliver', { notificationId: '00000000-0000-4000-8000-000000000001' });
    await new Promise((r) => setTimeout(r, 500));
    expect(p.emulator.stats().sendRequests).toBe(before);
  });

  it(`work queued again ${MAX_REQUEUES} times is given up: its deliveries fail with the reason, the notification is final`, async () => {
    const t = await p.project();
    const userId = unique('cust');
    const token = unique('tok');
    await p.registerDevices(t.apiKey.key, [{ userId, deviceToken: token }]);
    const device = await p.h.db.device.findFirstOrThrow({ where: { projectId: t.project.id, userId } });
    const old = new Date(Date.now() - 10 * 60_000);
    // Never planned: its job lost again and again.
    const lost = await p.h.db.notification.create({
      data: { projectId: t.project.id, templateId: t.templateId, userIds: [userId], variables: { name: 'x', count: 1 }, recipients: 1, createdAt: old, requeues: MAX_REQUEUES },
    });
    // Planned, with a retry whose job never came (and was queued again as often).
    const stuck = await p.h.db.notification.create({
      data: {
        projectId: t.project.id, templateId: t.templateId, userIds: [userId], variables: { name: 'x', count: 1 }, recipients: 1, createdAt: old,
        status: 'processing', devices: 1, pendingDeliveries: 1, requeues: MAX_REQUEUES,
        deliveries: { create: { userId, deviceId: device.id, platform: 'android', status: 'pending', attempts: 1, nextAttemptAt: new Date(Date.now() - 5 * 60_000) } },
      },
    });
    // Below the bound: queued again, and counted.
    const once = await p.h.db.notification.create({
      data: { projectId: t.project.id, templateId: t.templateId, userIds: [userId], variables: { name: 'x', count: 1 }, recipients: 1, createdAt: old, requeues: MAX_REQUEUES - 1 },
    });

    const a = await p.waitForNotification(t.apiKey.key, lost.id);
    expect(a).toMatchObject({ status: 'failed', stats: { sent: 0, failed: 0 }, deliveries: [] });
    const b = await p.waitForNotification(t.apiKey.key, stuck.id);
    expect(b).toMatchObject({ status: 'failed', stats: { devices: 1, sent: 0, failed: 1 } });
    expect(b.deliveries).toEqual([expect.objectContaining({ status: 'failed', error: `Delivery was given up after its lost work was queued again ${MAX_REQUEUES} times` })]);
    const c = await p.waitForNotification(t.apiKey.key, once.id);
    expect(c.status).toBe('completed');
    expect((await p.h.db.notification.findUniqueOrThrow({ where: { id: once.id } })).requeues).toBe(MAX_REQUEUES);
    // The given-up work was never sent: the one device got the one notification that was queued again.
    expect(p.emulator.received({ token })).toHaveLength(1);
    const jobs = await p.h.container.queue.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed']);
    expect(jobs.filter((j) => [lost.id, stuck.id].includes(j.data?.notificationId))).toEqual([]);
  });
});
