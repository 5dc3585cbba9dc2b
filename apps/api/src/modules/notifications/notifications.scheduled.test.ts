import { deliverJobId, SCHEDULE_AHEAD_MS } from '@herald/core';
import { expectError, startApi, type Harness } from '@herald/testing';
import { tooManyScheduled } from './notifications.service';
import { queuedJobsFor, sendableProject } from './test-helpers/sendable';

/**
 * Scheduled sends once filled Redis: 5,000 sends 29 days ahead were 5,000 delayed jobs of about a
 * kilobyte each, kept up to 30 days, on a Redis that evicts nothing. Now a send due later than
 * SCHEDULE_AHEAD_MS is written without a job (the worker's sweeper queues it nearer the time), and a
 * project holds at most SCHEDULED_PER_PROJECT scheduled notifications (3 here): past it a 409 with
 * nothing written or queued.
 */
let h: Harness;
beforeAll(async () => {
  h = await startApi({ QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-scheduled`, SCHEDULED_PER_PROJECT: '3' });
});
afterAll(() => h.close());

const ahead = (ms: number) => new Date(Date.now() + ms).toISOString();
const DAY = 24 * 3600_000;

it('a send scheduled weeks ahead takes nothing in Redis; one due soon is a delayed job', async () => {
  const t = await sendableProject(h);
  const far = await h.post('/push/send-bulk', { apiKey: t.apiKey.key, body: { userIds: ['a', 'b'], templateId: t.templateId, variables: t.variables, sendAt: ahead(29 * DAY) } });
  expect(far.status).toBe(202);
  const soon = await h.post('/push/send', { apiKey: t.apiKey.key, body: { userId: 'a', templateId: t.templateId, variables: t.variables, sendAt: ahead(SCHEDULE_AHEAD_MS / 2) } });
  expect(soon.status).toBe(202);

  expect(await queuedJobsFor(h, [far.body.notificationId])).toHaveLength(0);
  expect(await h.db.notification.findUniqueOrThrow({ where: { id: far.body.notificationId } })).toMatchObject({ status: 'scheduled', enqueuedAt: null });
  const job = await h.container.queue.getJob(deliverJobId(soon.body.notificationId));
  expect(await job!.getState()).toBe('delayed');
  expect((await h.db.notification.findUniqueOrThrow({ where: { id: soon.body.notificationId } })).enqueuedAt).not.toBeNull();
});

it('the 4th scheduled notification of a project is a 409, nothing written or queued; sends due now and other projects go on', async () => {
  const t = await sendableProject(h);
  const schedule = (sendAt: string) => h.post('/push/send', { apiKey: t.apiKey.key, body: { userId: 'a', templateId: t.templateId, variables: t.variables, sendAt } });
  const accepted = [await schedule(ahead(29 * DAY)), await schedule(ahead(DAY)), await schedule(ahead(60_000))];
  expect(accepted.map((r) => r.status)).toEqual([202, 202, 202]);
  const jobsBefore = await h.container.queue.getJobCounts('delayed', 'waiting');

  for (const sendAt of [ahead(29 * DAY), ahead(60_000)]) expectError(await schedule(sendAt), 409, tooManyScheduled(3));
  const bulk = await h.post('/push/send-bulk', { apiKey: t.apiKey.key, body: { userIds: ['a', 'b'], templateId: t.templateId, variables: t.variables, sendAt: ahead(DAY) } });
  expectError(bulk, 409, tooManyScheduled(3));
  expect(await h.db.notification.count({ where: { projectId: t.project.id } })).toBe(3);
  expect(await h.container.queue.getJobCounts('delayed', 'waiting')).toEqual(jobsBefore);

  // A send due now is not scheduled: it goes.
  expect((await h.post('/push/send', { apiKey: t.apiKey.key, body: { userId: 'a', templateId: t.templateId, variables: t.variables } })).status).toBe(202);
  // Canceling one makes room for one.
  expect((await h.post(`/push/notifications/${accepted[0].body.notificationId}/cancel`, { apiKey: t.apiKey.key })).status).toBe(200);
  expect((await schedule(ahead(DAY))).status).toBe(202);
  expectError(await schedule(ahead(DAY)), 409);
  // Another project's room is its own.
  const other = await sendableProject(h);
  expect((await h.post('/push/send', { apiKey: other.apiKey.key, body: { userId: 'a', templateId: other.templateId, variables: other.variables, sendAt: ahead(DAY) } })).status).toBe(202);
});
