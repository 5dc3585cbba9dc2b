import { webhookJobId } from '@herald/core';
import { startPipeline, startReceiver, unique, waitUntil, type Pipeline, type Receiver } from '@herald/testing';

/**
 * The webhook sweeper, as a worker runs it (a job scheduler, every SWEEP_INTERVAL_MS: a second here):
 * webhook work whose job was lost is done all the same. A database of its own: the sweeper looks at
 * every project.
 */
let p: Pipeline;
let r: Receiver;
beforeAll(async () => {
  r = await startReceiver();
  p = await startPipeline({ WEBHOOK_ALLOW_PRIVATE: 'true' }, { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_HTTP_HOSTS: '127.0.0.1' }, { ownDatabase: true });
}, 60_000);
afterAll(async () => {
  await p.close();
  await r.close();
});

it('an overdue attempt whose job was lost is queued again; a final notification without its event gets it', async () => {
  const t = await p.project();
  const path = `/${unique('swept')}`;
  const created = await p.h.post(`/projects/${t.project.id}/webhooks`, { token: t.owner.accessToken, body: { url: r.url(path), events: ['notification.completed'] } });
  expect(created.status).toBe(201);
  // The endpoint has been there a while: the notification below finished after it was created.
  await p.h.db.webhookEndpoint.update({ where: { id: created.body.id }, data: { createdAt: new Date(Date.now() - 10 * 60_000) } });

  // A test event whose attempt's job Redis lost, its attempt due a minute ago.
  const test = await p.h.post(`/projects/${t.project.id}/webhooks/${created.body.id}/test`, { token: t.owner.accessToken });
  expect(test.status).toBe(202);
  await (await p.h.container.webhookQueue.getJob(webhookJobId(test.body.deliveryId, 1)))!.remove();
  await p.h.db.webhookDelivery.update({ where: { id: test.body.deliveryId }, data: { nextAttemptAt: new Date(Date.now() - 60_000) } });

  // A notification that finished two minutes ago, whose worker died before it emitted the event.
  const finished = await p.h.db.notification.create({
    data: { projectId: t.project.id, templateId: t.templateId, userIds: ['u1'], variables: {}, recipients: 1, status: 'completed', createdAt: new Date(Date.now() - 5 * 60_000), completedAt: new Date(Date.now() - 2 * 60_000) },
  });

  await p.startWorker();
  const received = await r.waitFor(path, 2);
  const types = received.map((req) => JSON.parse(req.body) as { type: string; id: string; data: { notification?: { id: string } } });
  expect(types.map((e) => e.type).sort()).toEqual(['notification.completed', 'webhook.test']);
  expect(types.find((e) => e.type === 'webhook.test')!.id).toBe(test.body.eventId);
  expect(types.find((e) => e.type === 'notification.completed')!.data.notification!.id).toBe(finished.id);
  // The receiver has answered; the worker records the attempt just after.
  let status = '';
  await waitUntil(async () => (status = (await p.h.db.webhookDelivery.findUniqueOrThrow({ where: { id: test.body.deliveryId } })).status) === 'succeeded', 5000, () => `the test event's delivery to succeed (${status})`);
  // Swept once: the next sweeps find nothing left to do.
  await new Promise((res) => setTimeout(res, 2500));
  expect(r.at(path)).toHaveLength(2);
}, 60_000);
