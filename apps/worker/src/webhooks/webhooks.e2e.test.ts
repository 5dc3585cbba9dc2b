import { Webhook } from 'standardwebhooks';
import { verifyWebhook } from '@herald/client';
import { startPipeline, startReceiver, unique, waitUntil, type Pipeline, type Receiver } from '@herald/testing';

/**
 * Webhooks end to end: API (this process) → Postgres + Redis → worker (a child process) → a real
 * HTTP receiver in this process. The retry schedule is shrunk (300 ms doubling, at most 2 s) so
 * that a day's worth of behaviour fits in seconds; the code paths are those of production.
 */
const BASE_MS = 300;
const TIMEOUT_MS = 1000;
let p: Pipeline;
let r: Receiver;

beforeAll(async () => {
  r = await startReceiver();
  p = await startPipeline(
    { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_BASE_MS: String(BASE_MS), WEBHOOK_RETRY_MAX_DELAY_MS: '2000', WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS) },
    { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_HTTP_HOSTS: '127.0.0.1' },
  );
  await p.startWorker();
}, 60_000);
afterAll(async () => {
  await p.close();
  await r.close();
});

async function endpoint(t: { owner: { accessToken: string }; project: { id: string } }, path: string, events: string[] = ['notification.completed', 'notification.partially_failed', 'notification.failed', 'device.token_removed']) {
  const res = await p.h.post(`/projects/${t.project.id}/webhooks`, { token: t.owner.accessToken, body: { url: r.url(path), events } });
  expect(res.status).toBe(201);
  return res.body as { id: string; secret: string };
}

async function sendTest(t: { owner: { accessToken: string }; project: { id: string } }, webhookId: string) {
  const res = await p.h.post(`/projects/${t.project.id}/webhooks/${webhookId}/test`, { token: t.owner.accessToken });
  expect(res.status).toBe(202);
  return res.body as { eventId: string; deliveryId: string };
}

async function deliveries(t: { owner: { accessToken: string }; project: { id: string } }, webhookId: string) {
  const res = await p.h.get(`/projects/${t.project.id}/webhooks/${webhookId}/deliveries`, { token: t.owner.accessToken });
  expect(res.status).toBe(200);
  return res.body.data as Array<{ id: string; status: string; eventType: string; responseStatus: number | null; nextRetryAt: string | null; error: string | null; attempts: Array<{ attempt: number; succeeded: boolean; responseStatus: number | null; durationMs: number; error: string | null; createdAt: string }> }>;
}

/** Polls the endpoint's deliveries until `done` holds for them. */
async function waitForDeliveries(t: Parameters<typeof deliveries>[0], webhookId: string, done: (d: Awaited<ReturnType<typeof deliveries>>) => boolean, timeoutMs = 30_000) {
  let list: Awaited<ReturnType<typeof deliveries>> = [];
  await waitUntil(async () => done((list = await deliveries(t, webhookId))), timeoutMs, () => `the deliveries expected; last: ${JSON.stringify(list, null, 1)}\nworker:\n${p.workers.map((w) => w.output.join('')).join('')}`, 100);
  return list;
}

const gaps = (times: number[]) => times.slice(1).map((t, i) => t - times[i]);

describe('signed events', () => {
  it('a test event arrives signed; the standard-webhooks library and @herald/client verify it; its delivery is logged', async () => {
    const t = await p.project();
    const path = `/${unique('signed')}`;
    const hook = await endpoint(t, path);
    const { eventId, deliveryId } = await sendTest(t, hook.id);

    const [req] = await r.waitFor(path, 1);
    expect(req.headers['webhook-id']).toBe(eventId);
    expect(req.headers['webhook-timestamp']).toMatch(/^\d{10}$/);
    expect(req.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(req.headers['content-type']).toBe('application/json');
    const payload = new Webhook(hook.secret).verify(req.body, req.headers);
    expect(payload).toEqual({ version: 1, type: 'webhook.test', id: eventId, createdAt: expect.any(String), data: { webhookId: hook.id, message: expect.any(String) } });
    expect(verifyWebhook(req.body, req.headers, hook.secret)).toEqual(payload);
    const another = await endpoint(t, '/other');
    expect(() => verifyWebhook(req.body, req.headers, another.secret)).toThrow();

    const [d] = await waitForDeliveries(t, hook.id, (l) => l[0]?.status === 'succeeded');
    expect(d).toMatchObject({ id: deliveryId, eventType: 'webhook.test', status: 'succeeded', responseStatus: 200, nextRetryAt: null, error: null });
    expect(d.attempts).toEqual([{ attempt: 1, succeeded: true, responseStatus: 200, durationMs: expect.any(Number), error: null, responseBody: '', createdAt: expect.any(String) }]);
    // The secret is never logged.
    const logs = p.workers.map((w) => w.output.join('')).join('') + p.h.logLines.join('');
    expect(logs).not.toContain(hook.secret);
    expect(logs).not.toContain(hook.secret.slice(6));
  });

  it('after a rotation each request carries both signatures: the old secret and the new one verify it', async () => {
    const t = await p.project();
    const path = `/${unique('rotate')}`;
    const hook = await endpoint(t, path);
    const rotated = await p.h.post(`/projects/${t.project.id}/webhooks/${hook.id}/rotate-secret`, { token: t.owner.accessToken });
    expect(rotated.status).toBe(200);
    await sendTest(t, hook.id);
    const [req] = await r.waitFor(path, 1);
    expect(req.headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(hook.secret).verify(req.body, req.headers)).toMatchObject({ type: 'webhook.test' });
    expect(new Webhook(rotated.body.secret).verify(req.body, req.headers)).toMatchObject({ type: 'webhook.test' });
  });
});

describe('retries', () => {
  it('a receiver down for a while gets every event once it is back', async () => {
    const t = await p.project();
    const path = `/${unique('down')}`;
    const hook = await endpoint(t, path);
    await r.stop();
    try {
      const sent = [await sendTest(t, hook.id), await sendTest(t, hook.id), await sendTest(t, hook.id)];
      // Each has failed at least twice against the closed port.
      const failing = await waitForDeliveries(t, hook.id, (l) => l.length === 3 && l.every((d) => d.attempts.length >= 2));
      for (const d of failing) {
        expect(d.status).toBe('pending');
        expect(d.nextRetryAt).toEqual(expect.any(String));
        expect(d.attempts[0]).toMatchObject({ succeeded: false, responseStatus: null, error: 'The connection was refused' });
      }
      await r.start();
      const done = await waitForDeliveries(t, hook.id, (l) => l.every((d) => d.status === 'succeeded'));
      expect(done.map((d) => d.id).sort()).toEqual(sent.map((s) => s.deliveryId).sort());
      const ids = new Set(r.at(path).map((req) => req.headers['webhook-id']));
      expect([...ids].sort()).toEqual(sent.map((s) => s.eventId).sort());
    } finally {
      if (!(await isListening())) await r.start();
    }
  });

  it.each([
    ['410', () => ({ status: 410 })],
    ['500', () => ({ status: 500, body: 'boom' })],
    ['timeout', () => 'hang' as const],
  ])('a %s is retried with exponential backoff until a 2xx', async (label, failure) => {
    const t = await p.project();
    const path = `/${unique(`r${label}`)}`;
    r.on(path, (n) => (n <= 2 ? failure() : { status: 204 }));
    const hook = await endpoint(t, path);
    await sendTest(t, hook.id);

    const [d] = await waitForDeliveries(t, hook.id, (l) => l[0]?.status === 'succeeded');
    expect(d.attempts.map((a) => [a.attempt, a.succeeded])).toEqual([
      [1, false],
      [2, false],
      [3, true],
    ]);
    const failed = d.attempts[0];
    if (label === 'timeout') expect(failed).toMatchObject({ responseStatus: null, error: `No complete answer within ${TIMEOUT_MS} ms` });
    else expect(failed).toMatchObject({ responseStatus: Number(label), error: `HTTP ${label}`, responseBody: label === '500' ? 'boom' : '' });
    expect(d.responseStatus).toBe(204);

    // On schedule: the receiver saw the retries no sooner than the backoff allows (base, then twice
    // the base, each −20 % jitter at most), plus the timeout itself for a receiver that hangs.
    const requests = r.at(path);
    expect(requests).toHaveLength(3);
    const wait = gaps(requests.map((q) => q.at));
    const answered = label === 'timeout' ? TIMEOUT_MS : 0;
    expect(wait[0]).toBeGreaterThanOrEqual(answered + BASE_MS * 0.8 - 20);
    expect(wait[1]).toBeGreaterThanOrEqual(answered + 2 * BASE_MS * 0.8 - 20);
    // Every retry is the same event, the same id.
    expect(new Set(requests.map((q) => q.headers['webhook-id'])).size).toBe(1);
  });

  it('honours Retry-After', async () => {
    const t = await p.project();
    const path = `/${unique('ra')}`;
    r.on(path, (n) => (n === 1 ? { status: 503, headers: { 'retry-after': '2' } } : { status: 200 }));
    const hook = await endpoint(t, path);
    await sendTest(t, hook.id);
    const requests = await r.waitFor(path, 2);
    expect(requests[1].at - requests[0].at).toBeGreaterThanOrEqual(2000 - 20);
  });

  it('a deleted endpoint gets nothing more', async () => {
    const t = await p.project();
    const path = `/${unique('deleted')}`;
    r.on(path, () => ({ status: 500 }));
    const hook = await endpoint(t, path);
    await sendTest(t, hook.id);
    await sendTest(t, hook.id);
    await r.waitFor(path, 4);
    expect((await p.h.delete(`/projects/${t.project.id}/webhooks/${hook.id}`, { token: t.owner.accessToken })).status).toBe(200);
    // At most the requests in flight at that moment (one per delivery) may still arrive.
    const atDeletion = r.at(path).length;
    await new Promise((res) => setTimeout(res, 5000)); // more than two retry intervals at the 2 s cap
    expect(r.at(path).length).toBeLessThanOrEqual(atDeletion + 2);
    const settled = r.at(path).length;
    await new Promise((res) => setTimeout(res, 3000));
    expect(r.at(path).length).toBe(settled);
    expect(await p.h.db.webhookDelivery.count({ where: { endpointId: hook.id } })).toBe(0);
  });
});

describe('notification events', () => {
  it("a notification's outcome and its removed tokens arrive signed, each only at the endpoints subscribed to it", async () => {
    const t = await p.project();
    const everything = `/${unique('all')}`;
    const tokensOnly = `/${unique('tokens')}`;
    const all = await endpoint(t, everything);
    const tokens = await endpoint(t, tokensOnly, ['device.token_removed']);
    const userId = unique('cust');
    const dead = `unregistered-${unique('t')}`;
    await p.registerDevices(t.apiKey.key, [
      { userId, deviceToken: unique('ok'), platform: 'android' },
      { userId, deviceToken: dead, platform: 'ios' },
    ]);
    const deadDevice = await p.h.db.device.findFirstOrThrow({ where: { projectId: t.project.id, deviceToken: dead } });
    const sent = await p.h.post('/push/send', { apiKey: t.apiKey.key, body: { userId, templateId: t.templateId, variables: { name: 'a', count: 1 } } });
    expect(sent.status).toBe(202);
    const n = await p.waitForNotification(t.apiKey.key, sent.body.notificationId);
    expect(n.status).toBe('partially_failed');

    const received = (await r.waitFor(everything, 2)).map((q) => new Webhook(all.secret).verify(q.body, q.headers) as { type: string });
    expect(received).toHaveLength(2);
    expect(received).toContainEqual({
      version: 1,
      type: 'notification.partially_failed',
      id: expect.any(String),
      createdAt: expect.any(String),
      data: { notification: { id: n.id, status: 'partially_failed', templateId: t.templateId, createdAt: n.createdAt, completedAt: n.completedAt, stats: n.stats } },
    });
    const removed = {
      version: 1,
      type: 'device.token_removed',
      id: expect.any(String),
      createdAt: expect.any(String),
      data: { userId, deviceId: deadDevice.id, platform: 'ios', provider: 'fcm', error: expect.stringContaining('UNREGISTERED'), notificationId: n.id },
    };
    expect(received).toContainEqual(removed);
    const [tokenEvent] = await r.waitFor(tokensOnly, 1);
    expect(new Webhook(tokens.secret).verify(tokenEvent.body, tokenEvent.headers)).toEqual(removed);

    // A user without devices: notification.failed, to the endpoint that subscribes to it only.
    const none = await p.h.post('/push/send', { apiKey: t.apiKey.key, body: { userId: unique('nobody'), templateId: t.templateId, variables: { name: 'a', count: 1 } } });
    await p.waitForNotification(t.apiKey.key, none.body.notificationId);
    const [, , failed] = await r.waitFor(everything, 3);
    expect(new Webhook(all.secret).verify(failed.body, failed.headers)).toMatchObject({ type: 'notification.failed', data: { notification: { id: none.body.notificationId, status: 'failed' } } });
    // Emitted once each: a re-run or the sweeper would find the event already there.
    expect(await p.h.db.webhookEvent.count({ where: { projectId: t.project.id } })).toBe(3);
    expect(r.at(tokensOnly)).toHaveLength(1);
  });
});

describe('projects finishing together', () => {
  it('notifications of several projects that finish in the same moment each reach only their own subscribed endpoints', async () => {
    // The worker reads every finishing project's subscriptions in one query: stopped while the sends
    // are accepted, it then finishes them together.
    await Promise.all(p.workers.splice(0).map((w) => w.stop()));
    const [a, b, c] = await Promise.all([p.project(), p.project(), p.project()]);
    const pathA = `/${unique('a')}`;
    const pathB = `/${unique('b')}`;
    await endpoint(a, pathA, ['notification.completed']);
    await endpoint(b, pathB, ['notification.failed']);
    const sends: { key: string; id: string }[] = [];
    for (const t of [a, b, c]) {
      const userId = unique('cust');
      await p.registerDevices(t.apiKey.key, [{ userId, deviceToken: unique('ok'), platform: 'android' }]);
      for (const to of [userId, unique('nobody')]) {
        const res = await p.h.post('/push/send', { apiKey: t.apiKey.key, body: { userId: to, templateId: t.templateId, variables: { name: 'a', count: 1 } } });
        expect(res.status).toBe(202);
        sends.push({ key: t.apiKey.key, id: res.body.notificationId });
      }
    }
    await p.startWorker();
    const final = await Promise.all(sends.map((s) => p.waitForNotification(s.key, s.id)));
    expect(final.map((n) => n.status)).toEqual(['completed', 'failed', 'completed', 'failed', 'completed', 'failed']);

    const [toA] = await r.waitFor(pathA, 1);
    const [toB] = await r.waitFor(pathB, 1);
    expect(JSON.parse(toA.body)).toMatchObject({ type: 'notification.completed', data: { notification: { id: sends[0].id } } });
    expect(JSON.parse(toB.body)).toMatchObject({ type: 'notification.failed', data: { notification: { id: sends[3].id } } });
    // Nothing else was recorded: not B's completed one, nothing for A's failed one or for C.
    await new Promise((res) => setTimeout(res, 500));
    expect(r.at(pathA)).toHaveLength(1);
    expect(r.at(pathB)).toHaveLength(1);
    const events = await p.h.db.webhookEvent.findMany({ where: { projectId: { in: [a.project.id, b.project.id, c.project.id] } }, select: { projectId: true, type: true } });
    expect(events).toHaveLength(2);
    expect(events).toEqual(expect.arrayContaining([{ projectId: a.project.id, type: 'notification.completed' }, { projectId: b.project.id, type: 'notification.failed' }]));
  });
});

async function isListening() {
  try {
    await fetch(r.url('/ping'), { method: 'HEAD' });
    return true;
  } catch {
    return false;
  }
}
