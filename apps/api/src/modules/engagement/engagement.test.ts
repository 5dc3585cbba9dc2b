import { randomUUID } from 'node:crypto';
import { createHeraldClient, reportEvents } from '@herald/client';
import { startApi, tenant, type Harness, type Tenant } from '@herald/testing';
import { deliveredNotification, today } from './test-helpers/delivered';

/**
 * Engagement events and what they add up to: a notification's funnel, the daily series per template
 * and per analytics label, webhooks. Refusals: engagement.errors.test.ts; tenancy:
 * engagement.security.test.ts; the whole round trip with the worker: engagement.e2e.test.ts.
 */
let h: Harness;
let t: Tenant;
beforeAll(async () => {
  h = await startApi();
  t = await tenant(h);
});
afterAll(() => h.close());

const post = (events: unknown[]) => h.post('/push/events', { apiKey: t.apiKey.key, body: { events } });
const funnelOf = async (id: string) => (await h.get(`/push/notifications/${id}`, { apiKey: t.apiKey.key })).body.engagement;
const todayOf = async (path: string) => {
  const res = await h.get(path, { apiKey: t.apiKey.key });
  expect(res.status).toBe(200);
  return res.body.days.find((d: { date: string }) => d.date === today());
};

describe('POST /push/events', () => {
  it('records events: the funnel and both series move; a repeated event changes nothing', async () => {
    const n = await deliveredNotification(h, t.project.id, { sent: 4, failed: 1, label: 'spring-sale' });
    const [a, b, c] = n.sentIds;
    const events = [
      { deliveryId: a, type: 'received' },
      { deliveryId: a, type: 'opened', at: new Date().toISOString() },
      { deliveryId: b, type: 'received' },
      { deliveryId: b, type: 'clicked', action: 'buy' },
      { deliveryId: c, type: 'dismissed' },
    ];
    const res = await post(events);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ accepted: events.map((e, index) => ({ index, deliveryId: e.deliveryId, type: e.type, duplicate: false })), refused: [] });

    const funnel = { received: 2, opened: 1, clicked: 1, dismissed: 1, rates: { received: 0.5, opened: 0.25, clicked: 0.25, dismissed: 0.25 } };
    expect(await funnelOf(n.notificationId)).toEqual(funnel);
    const series = { date: today(), sent: 5, delivered: 4, opened: 1, clicked: 1 };
    expect(await todayOf(`/push-templates/${n.templateId}/engagement`)).toEqual(series);
    expect(await todayOf('/push/analytics-labels/spring-sale/engagement')).toEqual(series);
    const stored = await h.db.deliveryEvent.findUniqueOrThrow({ where: { deliveryId_type: { deliveryId: b, type: 'clicked' } } });
    expect(stored).toMatchObject({ projectId: t.project.id, notificationId: n.notificationId, action: 'buy' });

    // Sent again (a retry after a timeout): accepted as duplicates, nothing moves.
    const again = await post(events);
    expect(again.body.accepted.map((x: { duplicate: boolean }) => x.duplicate)).toEqual([true, true, true, true, true]);
    expect(await funnelOf(n.notificationId)).toEqual(funnel);
    expect(await todayOf(`/push-templates/${n.templateId}/engagement`)).toEqual(series);
    expect(await h.db.deliveryEvent.count({ where: { notificationId: n.notificationId } })).toBe(5);
  });

  it('the same event twice in one batch counts once, also from concurrent requests', async () => {
    const n = await deliveredNotification(h, t.project.id, { sent: 2 });
    const res = await post([
      { deliveryId: n.sentIds[0], type: 'opened' },
      { deliveryId: n.sentIds[0], type: 'opened' },
    ]);
    expect(res.body.accepted.map((x: { duplicate: boolean }) => x.duplicate)).toEqual([false, true]);
    const concurrent = await Promise.all(Array.from({ length: 4 }, () => post([{ deliveryId: n.sentIds[1], type: 'opened' }])));
    expect(concurrent.flatMap((r) => r.body.accepted.map((x: { duplicate: boolean }) => x.duplicate)).filter((d) => !d)).toHaveLength(1);
    expect((await funnelOf(n.notificationId)).opened).toBe(2);
  });

  it('accepts up to 1,000 events in one request', async () => {
    const n = await deliveredNotification(h, t.project.id, { sent: 250 });
    const events = n.sentIds.flatMap((deliveryId) => ['received', 'opened', 'clicked', 'dismissed'].map((type) => ({ deliveryId, type })));
    expect(events).toHaveLength(1000);
    const res = await post(events);
    expect(res.status).toBe(200);
    expect(res.body.accepted).toHaveLength(1000);
    expect(await funnelOf(n.notificationId)).toMatchObject({ received: 250, opened: 250, clicked: 250, dismissed: 250, rates: { opened: 1 } });
  });

  it("@herald/client's reportEvents splits over 1,000 events into requests and answers each by its position", async () => {
    const n = await deliveredNotification(h, t.project.id, { sent: 2 });
    const [a, b] = n.sentIds;
    const unknown = Array.from({ length: 999 }, () => ({ deliveryId: randomUUID(), type: 'opened' as const }));
    // 1,002 events: the second request holds the last two, one of them a repeat of the first event.
    const events = [{ deliveryId: a, type: 'opened' as const }, ...unknown, { deliveryId: b, type: 'clicked' as const }, { deliveryId: a, type: 'opened' as const }];
    const result = await reportEvents(createHeraldClient({ baseUrl: h.url, apiKey: t.apiKey.key }), events);
    expect(result.accepted).toEqual([
      { index: 0, deliveryId: a, type: 'opened', duplicate: false },
      { index: 1000, deliveryId: b, type: 'clicked', duplicate: false },
      { index: 1001, deliveryId: a, type: 'opened', duplicate: true },
    ]);
    expect(result.refused.map((r) => [r.index, r.deliveryId, r.reason])).toEqual(unknown.map((e, i) => [i + 1, e.deliveryId, 'unknown_delivery']));
    expect(await funnelOf(n.notificationId)).toMatchObject({ opened: 1, clicked: 1 });
  });

  it('works with a JWT and projectId too', async () => {
    const n = await deliveredNotification(h, t.project.id, { sent: 1 });
    const res = await h.post('/push/events', { token: t.owner.accessToken, query: { projectId: t.project.id }, body: { events: [{ deliveryId: n.sentIds[0], type: 'opened' }] } });
    expect(res.status).toBe(200);
    expect(res.body.accepted).toHaveLength(1);
  });
});

describe('funnel and series', () => {
  it('a notification without events has a zero funnel; rates are 0 when nothing was delivered', async () => {
    const n = await deliveredNotification(h, t.project.id, { sent: 0, failed: 2 });
    expect(await funnelOf(n.notificationId)).toEqual({ received: 0, opened: 0, clicked: 0, dismissed: 0, rates: { received: 0, opened: 0, clicked: 0, dismissed: 0 } });
  });

  it('a series has 30 days, oldest first, ending today, zeros where nothing was sent; dry runs are not counted', async () => {
    const n = await deliveredNotification(h, t.project.id, { sent: 2, dryRun: true });
    const res = await h.get(`/push-templates/${n.templateId}/engagement`, { apiKey: t.apiKey.key });
    expect(res.status).toBe(200);
    expect(res.body.days).toHaveLength(30);
    expect(res.body.to).toBe(today());
    expect(res.body.days[29].date).toBe(today());
    expect(res.body.days[0].date).toBe(res.body.from);
    expect(res.body.days.every((d: Record<string, unknown>) => d.sent === 0 && d.delivered === 0 && d.opened === 0 && d.clicked === 0)).toBe(true);
  });

  it('sends of a template add up in its series; a label never used is all zeros', async () => {
    const first = await deliveredNotification(h, t.project.id, { sent: 2 });
    await deliveredNotification(h, t.project.id, { sent: 3, failed: 1, templateId: first.templateId });
    expect(await todayOf(`/push-templates/${first.templateId}/engagement`)).toEqual({ date: today(), sent: 6, delivered: 5, opened: 0, clicked: 0 });
    expect(await todayOf('/push/analytics-labels/never-used/engagement')).toEqual({ date: today(), sent: 0, delivered: 0, opened: 0, clicked: 0 });
  });
});

describe('GET /push/notifications/{id}/events', () => {
  it("lists the notification's deliveries, each with its events in the order they happened", async () => {
    const n = await deliveredNotification(h, t.project.id, { sent: 2, failed: 1 });
    const opened = new Date(Date.now() - 10_000).toISOString();
    const clicked = new Date(Date.now() - 5_000).toISOString();
    await post([
      { deliveryId: n.sentIds[0], type: 'clicked', at: clicked, action: 'buy' },
      { deliveryId: n.sentIds[0], type: 'opened', at: opened },
    ]);
    const res = await h.get(`/push/notifications/${n.notificationId}/events`, { apiKey: t.apiKey.key });
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(3);
    const byId = Object.fromEntries(res.body.map((d: { id: string }) => [d.id, d]));
    expect(byId[n.sentIds[0]]).toMatchObject({
      userId: 'user-0',
      platform: 'android',
      status: 'sent',
      error: null,
      events: [
        { type: 'opened', at: opened, action: null },
        { type: 'clicked', at: clicked, action: 'buy' },
      ],
    });
    expect(byId[n.sentIds[1]].events).toEqual([]);
    expect(byId[n.failedIds[0]]).toMatchObject({ status: 'failed', events: [] });
  });
});

describe('webhooks', () => {
  it('delivery.opened and delivery.clicked reach subscribed endpoints, once per delivery; other types emit nothing', async () => {
    const w = await tenant(h);
    const hook = await h.post(`/projects/${w.project.id}/webhooks`, { token: w.owner.accessToken, body: { url: 'https://hooks.example.com/herald', events: ['delivery.opened', 'delivery.clicked'] } });
    expect(hook.status).toBe(201);
    // Subscribed to something else: gets none of them.
    const other = await h.post(`/projects/${w.project.id}/webhooks`, { token: w.owner.accessToken, body: { url: 'https://hooks.example.com/other', events: ['notification.completed'] } });
    expect(other.status).toBe(201);
    const n = await deliveredNotification(h, w.project.id, { sent: 1 });
    const events = [
      { deliveryId: n.sentIds[0], type: 'received' },
      { deliveryId: n.sentIds[0], type: 'opened' },
      { deliveryId: n.sentIds[0], type: 'clicked', action: 'reply' },
    ];
    for (let i = 0; i < 2; i++) expect((await h.post('/push/events', { apiKey: w.apiKey.key, body: { events } })).status).toBe(200);
    const emitted = await h.db.webhookEvent.findMany({ where: { projectId: w.project.id }, orderBy: { type: 'asc' } });
    expect(emitted.map((e) => e.type)).toEqual(['delivery.clicked', 'delivery.opened']);
    const body = JSON.parse(emitted[0].body);
    expect(body).toMatchObject({
      version: 1,
      type: 'delivery.clicked',
      data: { delivery: { id: n.sentIds[0], notificationId: n.notificationId, userId: 'user-0', platform: 'android' }, event: { type: 'clicked', action: 'reply', at: expect.any(String) } },
    });
    const deliveries = await h.db.webhookDelivery.findMany({ where: { eventId: { in: emitted.map((e) => e.id) } }, select: { endpointId: true } });
    expect(deliveries).toEqual([{ endpointId: hook.body.id }, { endpointId: hook.body.id }]);
  });
});
