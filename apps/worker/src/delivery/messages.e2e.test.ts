import { deliverJobId } from '@herald/core';
import type { ReceivedMessage } from '@herald/fcm-emulator';
import { startPipeline, unique, waitUntil, type Pipeline } from '@herald/testing';

/**
 * Messages as FCM allows them, end to end: API (this process) → Postgres + Redis → worker (a child
 * process) → FCM emulator, through the production FCM client. Each option is checked in the message
 * FCM received, with the names Google documents. The pipeline has a database of its own, so that its
 * sweeper (every second here) may be tested on scheduled sends.
 */
let p: Pipeline;
beforeAll(async () => {
  p = await startPipeline({}, {}, { ownDatabase: true });
  await p.startWorker();
}, 60_000);
afterAll(() => p.close());

const TEMPLATE = { title: 'Hello {{name}}', body: 'You have {{count}} new messages', data: { screen: 'inbox' } as Record<string, unknown> };

async function project(template: Record<string, unknown> = TEMPLATE) {
  return p.project(undefined, template as typeof TEMPLATE);
}

/** One user with an Android, an iOS and a web device. */
async function userWithEveryPlatform(apiKey: string) {
  const userId = unique('cust');
  const tokens = { android: unique('and'), ios: unique('ios'), web: unique('web') };
  await p.registerDevices(apiKey, [
    { userId, deviceToken: tokens.android, platform: 'android' },
    { userId, deviceToken: tokens.ios, platform: 'ios' },
    { userId, deviceToken: tokens.web, platform: 'web' },
  ]);
  return { userId, tokens };
}

const only = (token: string): ReceivedMessage => {
  const received = p.emulator.received({ token });
  expect(received).toHaveLength(1);
  return received[0];
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('platform options', () => {
  it('each option arrives on each platform as Google documents it; the template’s defaults fill in, the send’s values win', async () => {
    const t = await project({ ...TEMPLATE, options: { priority: 'normal', ttl: 600, android: { channelId: 'news', sound: 'default' }, apns: { sound: 'default', category: 'NEWS' } } });
    const { userId, tokens } = await userWithEveryPlatform(t.apiKey.key);
    const res = await p.h.post('/push/send', {
      apiKey: t.apiKey.key,
      body: {
        userId,
        templateId: t.templateId,
        variables: { name: 'Ada', count: 2 },
        priority: 'high',
        ttl: 3600,
        collapseKey: 'inbox',
        android: { sound: 'ping', tag: 'inbox', clickAction: 'OPEN_INBOX', color: '#3366ff', icon: 'ic_stat_inbox' },
        apns: { badge: 2, threadId: 'inbox', contentAvailable: true, mutableContent: true },
        webpush: { link: 'https://app.example.com/inbox', urgency: 'normal' },
      },
    });
    expect(res.status).toBe(202);
    const n = await p.waitForNotification(t.apiKey.key, res.body.notificationId);
    expect(n).toMatchObject({ status: 'completed', stats: { devices: 3, sent: 3 } });
    const notification = { title: 'Hello Ada', body: 'You have 2 new messages' };
    // Each device's copy names its delivery (the same id on every attempt).
    const data = { screen: 'inbox', herald_delivery_id: expect.stringMatching(UUID) };

    expect(only(tokens.android).message).toEqual({
      token: tokens.android,
      notification,
      data,
      android: {
        priority: 'high',
        ttl: '3600s',
        collapse_key: 'inbox',
        notification: { channel_id: 'news', sound: 'ping', tag: 'inbox', click_action: 'OPEN_INBOX', color: '#3366ff', icon: 'ic_stat_inbox' },
      },
    });

    const ios = only(tokens.ios);
    const expiration = Number((ios.message as any).apns.headers['apns-expiration']);
    // The expiry is the send time plus the ttl, in UNIX seconds (the emulator's clock is this process's).
    expect(Math.abs(expiration - (Math.floor(ios.receivedAt / 1000) + 3600))).toBeLessThanOrEqual(1);
    expect(ios.message).toEqual({
      token: tokens.ios,
      notification,
      data,
      apns: {
        headers: { 'apns-priority': '10', 'apns-expiration': String(expiration), 'apns-collapse-id': 'inbox', 'apns-push-type': 'alert' },
        payload: { aps: { sound: 'default', badge: 2, category: 'NEWS', 'thread-id': 'inbox', 'content-available': 1, 'mutable-content': 1 } },
      },
    });

    expect(only(tokens.web).message).toEqual({
      token: tokens.web,
      notification,
      data,
      webpush: { headers: { Urgency: 'normal', TTL: '3600', Topic: 'inbox' }, fcm_options: { link: 'https://app.example.com/inbox' } },
    });
  });

  it('a send without options: its delivery id in data, and the notification’s id as Android tag, apns-collapse-id and Web Push Topic', async () => {
    const t = await project();
    const { userId, tokens } = await userWithEveryPlatform(t.apiKey.key);
    const res = await p.h.post('/push/send', { apiKey: t.apiKey.key, body: { userId, templateId: t.templateId, variables: { name: 'Bo', count: 1 } } });
    await p.waitForNotification(t.apiKey.key, res.body.notificationId);
    const collapseId = (res.body.notificationId as string).replaceAll('-', '');
    expect(collapseId).toMatch(/^[A-Za-z0-9_-]{1,32}$/); // Web Push's Topic: at most 32 base64url characters
    const rows = await p.h.db.delivery.findMany({ where: { notificationId: res.body.notificationId }});
    const platformBlock = {
      [tokens.android]: { android: { notification: { tag: collapseId } } },
      [tokens.ios]: { apns: { headers: { 'apns-collapse-id': collapseId, 'apns-push-type': 'alert' } } },
      [tokens.web]: { webpush: { headers: { Topic: collapseId } } },
    };
    const ids = new Set<string>();
    for (const token of Object.values(tokens)) {
      const message = only(token).message as { data: Record<string, string> };
      expect(message).toEqual({ token, notification: { title: 'Hello Bo', body: 'You have 1 new messages' }, data: { screen: 'inbox', herald_delivery_id: expect.any(String) }, ...platformBlock[token] });
      ids.add(message.data.herald_delivery_id);
    }
    expect([...ids].sort()).toEqual(rows.map((r) => r.id).sort());
  });
});

describe('data-only', () => {
  it('no notification block; title and body in data; a background push on iOS', async () => {
    const t = await project();
    const { userId, tokens } = await userWithEveryPlatform(t.apiKey.key);
    const res = await p.h.post('/push/send', {
      apiKey: t.apiKey.key,
      body: { userId, templateId: t.templateId, variables: { name: 'Cy', count: 5 }, data: { orderId: 42 }, dataOnly: true, priority: 'high' },
    });
    const n = await p.waitForNotification(t.apiKey.key, res.body.notificationId);
    expect(n.status).toBe('completed');
    // The delivery id lets the app drop a repeat of a data message; nothing is shown, so no Android tag.
    const data = { screen: 'inbox', orderId: '42', title: 'Hello Cy', body: 'You have 5 new messages', herald_delivery_id: expect.stringMatching(UUID) };
    const collapseId = n.id.replaceAll('-', '');
    expect(only(tokens.android).message).toEqual({ token: tokens.android, data, android: { priority: 'high' } });
    expect(only(tokens.ios).message).toEqual({
      token: tokens.ios,
      data,
      apns: { headers: { 'apns-priority': '5', 'apns-collapse-id': collapseId, 'apns-push-type': 'background' }, payload: { aps: { 'content-available': 1 } } },
    });
    expect(only(tokens.web).message).toEqual({ token: tokens.web, data, webpush: { headers: { Urgency: 'high', Topic: collapseId } } });
  });
});

describe('personalised bulk', () => {
  it('500 recipients with 500 distinct variable sets: each device gets its own rendering', async () => {
    const t = await project();
    const prefix = unique('pers');
    const recipients = Array.from({ length: 500 }, (_, i) => ({ userId: `${prefix}-u${i}`, variables: { name: `User ${i}`, count: i } }));
    await p.h.db.device.createMany({
      data: recipients.map((r, i) => ({ projectId: t.project.id, provider: 'fcm', platform: 'android', userId: r.userId, deviceToken: `${prefix}-tok-${i}` })),
    });
    const res = await p.h.post('/push/send-bulk', { apiKey: t.apiKey.key, body: { templateId: t.templateId, variables: { count: 'shared' }, recipients } });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: 'queued', recipients: 500 });
    const n = await p.waitForNotification(t.apiKey.key, res.body.notificationId, 60_000);
    expect(n).toMatchObject({ status: 'completed', stats: { recipients: 500, devices: 500, sent: 500, failed: 0 } });
    for (let i = 0; i < 500; i++) {
      expect(only(`${prefix}-tok-${i}`).message.notification).toEqual({ title: `Hello User ${i}`, body: `You have ${i} new messages` });
    }
  }, 90_000);

  it('a recipient without variables of their own gets the shared ones', async () => {
    const t = await project();
    const { userId: first, tokens: a } = await userWithEveryPlatform(t.apiKey.key);
    const { userId: second, tokens: b } = await userWithEveryPlatform(t.apiKey.key);
    const res = await p.h.post('/push/send-bulk', {
      apiKey: t.apiKey.key,
      body: { templateId: t.templateId, variables: { name: 'everyone', count: 1 }, recipients: [{ userId: first, variables: { name: 'Ada' } }, { userId: second }] },
    });
    await p.waitForNotification(t.apiKey.key, res.body.notificationId);
    expect((only(a.android).message.notification as { title: string }).title).toBe('Hello Ada');
    expect((only(b.android).message.notification as { title: string }).title).toBe('Hello everyone');
  });
});

describe('dry runs', () => {
  it('FCM validates every message, nothing is delivered, a dead token is reported and not pruned', async () => {
    const t = await project();
    const userId = unique('cust');
    const good = unique('dry');
    const dead = `unregistered-${unique('dry')}`;
    await p.registerDevices(t.apiKey.key, [
      { userId, deviceToken: good },
      { userId, deviceToken: dead, platform: 'ios' },
    ]);
    const res = await p.h.post('/push/send', { apiKey: t.apiKey.key, body: { userId, templateId: t.templateId, variables: { name: 'Dry', count: 0 }, dryRun: true, priority: 'high' } });
    const n = await p.waitForNotification(t.apiKey.key, res.body.notificationId);
    expect(n).toMatchObject({ status: 'partially_failed', dryRun: true, stats: { devices: 2, sent: 1, failed: 1, invalidTokensRemoved: 0 } });
    const byStatus = Object.fromEntries(n.deliveries.map((d: { status: string }) => [d.status, d]));
    expect(byStatus.validated).toMatchObject({ platform: 'android', providerConfigId: t.providers[0].id, providerMessageId: null, error: null });
    expect(byStatus.failed.error).toMatch(/UNREGISTERED/);
    // Nothing reached a device; FCM saw the message with validate_only.
    expect(p.emulator.received({ token: good })).toEqual([]);
    expect(p.emulator.validated({ token: good })).toHaveLength(1);
    expect(p.emulator.validated({ token: good })[0].message).toMatchObject({ notification: { title: 'Hello Dry' }, android: { priority: 'high' } });
    // The dead token's device is still registered.
    const devices = (await p.h.get(`/push/devices/${userId}`, { token: t.owner.accessToken, query: { projectId: t.project.id } })).body;
    expect(devices.map((d: { deviceToken: string }) => d.deviceToken).sort()).toEqual([good, dead].sort());
  });
});

describe('scheduled sends', () => {
  async function scheduled(inMs: number, extra: Record<string, unknown> = {}) {
    const t = await project();
    const userId = unique('cust');
    const token = unique('sched');
    await p.registerDevices(t.apiKey.key, [{ userId, deviceToken: token }]);
    const sendAt = new Date(Math.ceil((Date.now() + inMs) / 1000) * 1000);
    const res = await p.h.post('/push/send', { apiKey: t.apiKey.key, body: { userId, templateId: t.templateId, variables: { name: 'Later', count: 1 }, sendAt: sendAt.toISOString(), ...extra } });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ notificationId: expect.any(String), status: 'scheduled', sendAt: sendAt.toISOString() });
    return { t, token, sendAt, id: res.body.notificationId as string };
  }

  it('is delivered at its time, within a second', async () => {
    const s = await scheduled(3000);
    await waitUntil(() => p.emulator.received({ token: s.token }).length > 0, 15_000, 'the scheduled message');
    const late = only(s.token).receivedAt - s.sendAt.getTime();
    expect(late).toBeGreaterThanOrEqual(0);
    expect(late).toBeLessThan(1000);
    const n = await p.waitForNotification(s.t.apiKey.key, s.id);
    expect(n).toMatchObject({ status: 'completed', sendAt: s.sendAt.toISOString() });
  });

  it('a canceled one is never delivered', async () => {
    const s = await scheduled(2000);
    const cancel = await p.h.post(`/push/notifications/${s.id}/cancel`, { apiKey: s.t.apiKey.key });
    expect(cancel.body.status).toBe('canceled');
    await new Promise((r) => setTimeout(r, s.sendAt.getTime() - Date.now() + 1500));
    expect(p.emulator.received({ token: s.token })).toEqual([]);
    const n = (await p.h.get(`/push/notifications/${s.id}`, { apiKey: s.t.apiKey.key })).body;
    expect(n).toMatchObject({ status: 'canceled', deliveries: [] });
  });

  it('a template deleted before its time fails it with a clear error', async () => {
    const s = await scheduled(2000);
    expect((await p.h.delete(`/push-templates/${s.t.templateId}`, { token: s.t.owner.accessToken })).status).toBe(200);
    const n = await p.waitForNotification(s.t.apiKey.key, s.id, 15_000);
    expect(n.status).toBe('failed');
    expect(n.deliveries).toEqual([expect.objectContaining({ status: 'failed', error: 'The template was deleted before delivery' })]);
    expect(p.emulator.received({ token: s.token })).toEqual([]);
    // Too late to cancel.
    expect((await p.h.post(`/push/notifications/${s.id}/cancel`, { apiKey: s.t.apiKey.key })).status).toBe(409);
  });

  it('survives a worker restart: its job waits in Redis while no worker runs', async () => {
    const s = await scheduled(2500);
    await Promise.all(p.workers.splice(0).map((w) => w.stop('SIGTERM')));
    await new Promise((r) => setTimeout(r, s.sendAt.getTime() - Date.now() + 500));
    expect(p.emulator.received({ token: s.token })).toEqual([]);
    await p.startWorker();
    const n = await p.waitForNotification(s.t.apiKey.key, s.id, 15_000);
    expect(n.status).toBe('completed');
    expect(p.emulator.received({ token: s.token })).toHaveLength(1);
  });

  it('a scheduled notification whose job was lost is swept up after its time', async () => {
    const s = await scheduled(60_000);
    await (await p.h.container.queue.getJob(deliverJobId(s.id)))!.remove();
    // Its time passed a while ago (as if Redis had lost the delayed job meanwhile).
    await p.h.db.notification.update({ where: { id: s.id }, data: { sendAt: new Date(Date.now() - 60_000) } });
    const n = await p.waitForNotification(s.t.apiKey.key, s.id, 15_000);
    expect(n.status).toBe('completed');
    expect(p.emulator.received({ token: s.token })).toHaveLength(1);
  });

  it('Idempotency-Key answers a scheduled send again without a second notification', async () => {
    const t = await project();
    const sendAt = new Date(Date.now() + 3600_000).toISOString();
    const send = () =>
      p.h.post('/push/send', { apiKey: t.apiKey.key, headers: { 'Idempotency-Key': 'reminder-1' }, body: { userId: 'u', templateId: t.templateId, variables: { name: 'x', count: 1 }, sendAt } });
    const [a, b] = await Promise.all([send(), send()]);
    expect(b.body).toEqual(a.body);
    expect(await p.h.db.notification.count({ where: { projectId: t.project.id } })).toBe(1);
  });
});
