import { startPipeline, startReceiver, unique, waitUntil, type Pipeline, type Receiver } from '@herald/testing';

/**
 * A receiver that answers bytes Postgres cannot store as text (a NUL, a PNG) once made every attempt
 * fail to record: the job threw, BullMQ ran it (and POSTed) five times, and the webhook sweeper queued
 * it again at every sweep, for ever. Now the answer is stored with its NULs replaced, the delivery is
 * retried on its schedule and given up at the end of its window; and the sweeper, like the delivery
 * sweeper, gives up on a delivery it has queued again too often or whose window is over.
 * The window is shrunk to 3 s (retries 200 ms doubling); the sweeper runs every second.
 */
const WINDOW_MS = 3000;
let p: Pipeline;
let r: Receiver;
beforeAll(async () => {
  r = await startReceiver();
  p = await startPipeline(
    { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_BASE_MS: '200', WEBHOOK_RETRY_MAX_DELAY_MS: '800', WEBHOOK_RETRY_WINDOW_MS: String(WINDOW_MS) },
    { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_HTTP_HOSTS: '127.0.0.1' },
    { ownDatabase: true },
  );
  await p.startWorker();
}, 60_000);
afterAll(async () => {
  await p.close();
  await r.close();
});

type Tenant = Awaited<ReturnType<Pipeline['project']>>;

async function endpointWithTest(t: Tenant, path: string) {
  const created = await p.h.post(`/projects/${t.project.id}/webhooks`, { token: t.owner.accessToken, body: { url: r.url(path), events: ['notification.completed'] } });
  expect(created.status).toBe(201);
  const test = await p.h.post(`/projects/${t.project.id}/webhooks/${created.body.id}/test`, { token: t.owner.accessToken });
  expect(test.status).toBe(202);
  return test.body as { deliveryId: string };
}

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

it('a NUL or binary answer is recorded, retried on schedule, then given up at the end of the window', async () => {
  const t = await p.project();
  const nul = `/${unique('nul')}`;
  const png = `/${unique('png')}`;
  r.on(nul, () => ({ status: 500, body: 'abc\0def' }));
  r.on(png, () => ({ status: 404, headers: { 'content-type': 'image/png' }, body: PNG }));
  const deliveries = [await endpointWithTest(t, nul), await endpointWithTest(t, png)];

  for (const { deliveryId } of deliveries) {
    await waitUntil(async () => (await p.h.db.webhookDelivery.findUniqueOrThrow({ where: { id: deliveryId } })).status === 'failed', 20_000, () => `delivery ${deliveryId} failed`);
  }
  const nulAttempts = await p.h.db.webhookAttempt.findMany({ where: { deliveryId: deliveries[0].deliveryId }, orderBy: { attempt: 'asc' } });
  // Retried on its schedule (a handful within the 3 s window), every attempt recorded once.
  expect(nulAttempts.length).toBeGreaterThanOrEqual(2);
  expect(nulAttempts.length).toBeLessThan(10);
  expect(nulAttempts.map((a) => a.attempt)).toEqual(nulAttempts.map((_, i) => i + 1));
  expect(nulAttempts[0].responseBody).toBe('abc\uFFFDdef');
  expect(nulAttempts[0].responseStatus).toBe(500);
  const pngAttempt = await p.h.db.webhookAttempt.findFirstOrThrow({ where: { deliveryId: deliveries[1].deliveryId, attempt: 1 } });
  expect(pngAttempt.responseBody).not.toMatch(/\0/);
  expect(pngAttempt.responseBody).toContain('PNG');
  // Each POST is one recorded attempt: no job ran twice, and nothing more comes after the end.
  expect(r.at(nul)).toHaveLength(nulAttempts.length);
  const posts = r.at(png).length;
  await new Promise((res) => setTimeout(res, 2500));
  expect(r.at(nul)).toHaveLength(nulAttempts.length);
  expect(r.at(png)).toHaveLength(posts);
}, 60_000);

it('the sweeper gives up on a lost attempt queued again too often, or past its window, without sending it', async () => {
  const t = await p.project();
  const path = `/${unique('lost')}`;
  const created = await p.h.post(`/projects/${t.project.id}/webhooks`, { token: t.owner.accessToken, body: { url: r.url(path), events: ['notification.completed'] } });
  expect(created.status).toBe(201);
  // Two deliveries whose attempt's job is gone (as a job that keeps failing ends), overdue: one
  // already queued again five times, one whose event is older than the window.
  const lost = async (requeues: number, eventAgeMs: number) => {
    const event = await p.h.db.webhookEvent.create({ data: { projectId: t.project.id, type: 'webhook.test', body: '{}', createdAt: new Date(Date.now() - eventAgeMs) } });
    return p.h.db.webhookDelivery.create({ data: { endpointId: created.body.id, eventId: event.id, requeues, nextAttemptAt: new Date(Date.now() - 60_000) } });
  };
  const given = [await lost(5, 1000), await lost(0, 2 * WINDOW_MS)];
  const requeued = await lost(4, 1000);

  for (const { id } of [...given, requeued]) {
    await waitUntil(async () => (await p.h.db.webhookDelivery.findUniqueOrThrow({ where: { id } })).status !== 'pending', 10_000, () => `delivery ${id} swept`);
  }
  for (const { id } of given) {
    const d = await p.h.db.webhookDelivery.findUniqueOrThrow({ where: { id } });
    expect(d).toMatchObject({ status: 'failed', attempts: 0, nextAttemptAt: null });
    expect(d.error).toMatch(/given up/);
  }
  // The one below the cap was queued again (and counted), and sent once.
  expect(await p.h.db.webhookDelivery.findUniqueOrThrow({ where: { id: requeued.id } })).toMatchObject({ status: 'succeeded', requeues: 5, attempts: 1 });
  expect(r.at(path)).toHaveLength(1);
}, 60_000);
