import { Queue } from 'bullmq';
import { AppError, deliverJob, deliverJobId, NOTIFICATIONS_QUEUE, SCHEDULE_AHEAD_MS } from '@herald/core';
import { closeDb, createDb, sqlPool } from '@herald/db';
import { ProjectReads } from '@herald/project-state';
import { startApi, startRedis, tenant, type Harness } from '@herald/testing';
import { ProjectSnapshot } from '../../project-cache/project-cache';
import { createRedis } from '../../redis';
import { NotificationService } from './notifications.service';

/**
 * Admission: the sends that reach the insert in one event-loop turn are written with one INSERT and
 * queued with one round trip. These tests call the service directly to control what shares a batch.
 */
let h: Harness;
beforeAll(async () => {
  h = await startApi();
});
afterAll(() => h.close());

/** A project ready to send, and a snapshot already holding its checks (as after a first send). */
async function ready() {
  const t = await tenant(h);
  await h.db.pushConfig.create({ data: { projectId: t.project.id, enabled: true } });
  await h.db.providerConfig.create({ data: { projectId: t.project.id, provider: 'fcm', name: 'fcm', priority: 1, config: {}, secrets: 'sealed', keyId: 'k' } });
  const template = await h.db.pushTemplate.create({ data: { projectId: t.project.id, name: 'greeting', title: 'Hi {{name}}', body: 'Hello' } });
  return { projectId: t.project.id, templateId: template.id, snapshot: new ProjectSnapshot(t.project.id, 'test', new ProjectReads(sqlPool(h.db))) };
}

const input = (templateId: string, userId = 'user-1') => ({ recipients: [{ userId }], templateId, variables: { name: 'Ada' }, options: {}, bulk: false, personalised: false });

it('concurrent sends are admitted together: one row each, and one deliver job they share that carries only their ids', async () => {
  const service = new NotificationService(h.db, h.container.queue);
  const p = await ready();
  const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => service.send(p.snapshot, input(p.templateId, `user-${i}`))));
  const ids = answers.map((a) => a.notificationId);
  expect(new Set(ids).size).toBe(40);
  const rows = await h.db.notification.findMany({ where: { projectId: p.projectId } });
  expect(rows.map((r) => r.id).sort()).toEqual([...ids].sort());
  expect(rows.map((r) => r.userIds[0]).sort()).toEqual(Array.from({ length: 40 }, (_, i) => `user-${i}`).sort());
  // The worker pays a job's fixed cost once for all of them; each row names the job, for the sweeper.
  const [jobId] = new Set(rows.map((r) => r.jobId));
  expect(rows.every((r) => r.jobId === jobId)).toBe(true);
  const job = await h.container.queue.getJob(jobId!);
  expect(job!.name).toBe(deliverJob.name);
  expect(job!.data).toEqual({ notificationIds: ids });
  expect(await Promise.all(ids.map((id) => h.container.queue.getJob(deliverJobId(id))))).toEqual(ids.map(() => undefined));
});

it('a send admitted alone, and a scheduled send, keep a job of their own', async () => {
  const service = new NotificationService(h.db, h.container.queue);
  const p = await ready();
  const alone = await service.send(p.snapshot, input(p.templateId, 'alone'));
  // Due within SCHEDULE_AHEAD_MS: a delayed job at once.
  const sendAt = new Date(Date.now() + SCHEDULE_AHEAD_MS / 2).toISOString();
  const [scheduled, now] = await Promise.all([service.send(p.snapshot, { ...input(p.templateId, 'later'), sendAt }), service.send(p.snapshot, input(p.templateId, 'now'))]);
  for (const { notificationId } of [alone, scheduled]) {
    expect((await h.container.queue.getJob(deliverJobId(notificationId)))!.data).toEqual({ notificationId });
    expect((await h.db.notification.findUniqueOrThrow({ where: { id: notificationId } })).jobId).toBeNull();
  }
  expect(await h.container.queue.getJob(deliverJobId(now.notificationId))).toBeDefined();
});

it('a row that breaks the batch fails alone: a send for a project deleted a moment ago is 404, the others are admitted', async () => {
  const service = new NotificationService(h.db, h.container.queue);
  const kept = await ready();
  const gone = await ready();
  await service.send(gone.snapshot, input(gone.templateId)); // its checks are now in the snapshot
  await h.db.project.delete({ where: { id: gone.projectId } });
  const results = await Promise.allSettled([
    service.send(kept.snapshot, input(kept.templateId, 'a')),
    service.send(gone.snapshot, input(gone.templateId, 'b')),
    service.send(kept.snapshot, input(kept.templateId, 'c')),
  ]);
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  const refused = (results[1] as PromiseRejectedResult).reason;
  expect(refused).toBeInstanceOf(AppError);
  expect(refused).toMatchObject({ status: 404, message: 'Project not found' });
  expect(await h.db.notification.count({ where: { projectId: kept.projectId } })).toBe(2);
});

it('small batches are written by statements each connection prepares once; a large batch is not kept', async () => {
  // One connection, so that its prepared statements can be read from it.
  const db = createDb(h.config.databaseUrl, { poolSize: 1 });
  try {
    const service = new NotificationService(db, h.container.queue);
    const p = await ready();
    await service.send(p.snapshot, input(p.templateId, 'one'));
    await Promise.all(['a', 'b', 'c'].map((u) => service.send(p.snapshot, input(p.templateId, u))));
    await Promise.all(Array.from({ length: 20 }, (_, i) => service.send(p.snapshot, input(p.templateId, `many-${i}`))));
    await service.send(p.snapshot, input(p.templateId, 'one-again')); // the kept statement, run again
    const rows = await db.notification.findMany({ where: { projectId: p.projectId }, select: { userIds: true } });
    expect(rows.map((r) => r.userIds[0]).sort()).toEqual(['a', 'b', 'c', 'one', 'one-again', ...Array.from({ length: 20 }, (_, i) => `many-${i}`)].sort());
    const { rows: kept } = await sqlPool(db).query<{ name: string }>(`SELECT "name" FROM pg_prepared_statements WHERE "name" LIKE 'herald_admit_%' ORDER BY "name"`);
    expect(kept.map((k) => k.name)).toEqual(['herald_admit_1', 'herald_admit_3']);
  } finally {
    await closeDb(db);
  }
});

it('the same Idempotency-Key twice in one batch: one notification, both answers name it', async () => {
  const service = new NotificationService(h.db, h.container.queue);
  const p = await ready();
  const [first, second] = await Promise.all([
    service.send(p.snapshot, input(p.templateId), 'same-key'),
    service.send(p.snapshot, input(p.templateId), 'same-key'),
  ]);
  expect(second).toEqual(first);
  expect(await h.db.notification.count({ where: { projectId: p.projectId } })).toBe(1);
});

it('when the queue refuses a batch, or a single send, each send is 503 and no row is left behind', async () => {
  const redis = await startRedis();
  const connection = createRedis({ redisUrl: redis.url }, 'failing-queue');
  connection.on('error', () => undefined);
  const queue = new Queue(NOTIFICATIONS_QUEUE, { connection, prefix: h.config.queuePrefix });
  queue.on('error', () => undefined);
  try {
    await queue.waitUntilReady();
    await redis.stop();
    const service = new NotificationService(h.db, queue);
    const p = await ready();
    const results = await Promise.allSettled([service.send(p.snapshot, input(p.templateId, 'a')), service.send(p.snapshot, input(p.templateId, 'b'))]);
    for (const r of results) {
      expect(r.status).toBe('rejected');
      expect((r as PromiseRejectedResult).reason).toMatchObject({ status: 503 });
    }
    expect(await h.db.notification.count({ where: { projectId: p.projectId } })).toBe(0);
    // A batch of one takes another call into the queue.
    await expect(service.send(p.snapshot, input(p.templateId, 'c'))).rejects.toMatchObject({ status: 503 });
    expect(await h.db.notification.count({ where: { projectId: p.projectId } })).toBe(0);
  } finally {
    await queue.close().catch(() => undefined);
    connection.disconnect();
    await redis.close();
  }
});
