import { randomUUID } from 'node:crypto';
import { startApi, tenant, type Harness, type Tenant } from '@herald/testing';
import { UNKNOWN_DELIVERY } from './engagement.service';
import { sendableProject } from '../notifications/test-helpers/sendable';
import { deliveredNotification } from './test-helpers/delivered';

/** Bad events are refused one by one, and never cost the good ones of their batch. */
let h: Harness;
let t: Tenant;
beforeAll(async () => {
  h = await startApi();
  t = await tenant(h);
});
afterAll(() => h.close());

const post = (body: unknown) => h.post('/push/events', { apiKey: t.apiKey.key, body });

it('a batch with bad items records the good ones and names each bad one with its reason', async () => {
  const n = await deliveredNotification(h, t.project.id, { sent: 2, failed: 1, sentAgoMs: 60_000 });
  const [a, b] = n.sentIds;
  const unknown = randomUUID();
  const events = [
    { deliveryId: a, type: 'opened' },
    { deliveryId: unknown, type: 'opened' },
    { deliveryId: n.failedIds[0], type: 'received' },
    { deliveryId: b, type: 'opened', at: new Date(n.sentAt.getTime() - 1000).toISOString() },
    { deliveryId: b, type: 'clicked', at: new Date(Date.now() + 3600_000).toISOString() },
    { deliveryId: b, type: 'viewed' },
    { deliveryId: 'not-a-uuid', type: 'opened' },
    'nonsense',
    { deliveryId: b, type: 'received', at: 'yesterday' },
    { deliveryId: b, type: 'received', action: 'x'.repeat(101) },
    { deliveryId: b, type: 'dismissed', at: new Date(n.sentAt.getTime() + 1000).toISOString() },
  ];
  const res = await post({ events });
  expect(res.status).toBe(200);
  expect(res.body.accepted).toEqual([
    { index: 0, deliveryId: a, type: 'opened', duplicate: false },
    { index: 10, deliveryId: b, type: 'dismissed', duplicate: false },
  ]);
  expect(res.body.refused).toEqual([
    { index: 1, deliveryId: unknown, type: 'opened', reason: 'unknown_delivery', message: UNKNOWN_DELIVERY },
    { index: 2, deliveryId: n.failedIds[0], type: 'received', reason: 'not_sent', message: 'The message was not sent (the delivery is failed)' },
    { index: 3, deliveryId: b, type: 'opened', reason: 'before_sent', message: `at is before the message was sent (${n.sentAt.toISOString()})` },
    { index: 4, deliveryId: b, type: 'clicked', reason: 'in_future', message: 'at is in the future' },
    { index: 5, deliveryId: b, type: 'viewed', reason: 'invalid', message: expect.stringMatching(/^events\.5\.type: type must be one of received, opened, clicked, dismissed/) },
    { index: 6, deliveryId: 'not-a-uuid', type: 'opened', reason: 'invalid', message: 'events.6.deliveryId: deliveryId must be a valid UUID' },
    { index: 7, reason: 'invalid', message: expect.stringMatching(/^events\.7/) },
    { index: 8, deliveryId: b, type: 'received', reason: 'invalid', message: expect.stringMatching(/^events\.8\.at: at must be an ISO 8601 date-time/) },
    { index: 9, deliveryId: b, type: 'received', reason: 'invalid', message: 'events.9.action: action must be at most 100 characters' },
  ]);
  expect(await h.db.deliveryEvent.findMany({ where: { notificationId: n.notificationId }, select: { deliveryId: true, type: true }, orderBy: { type: 'asc' } })).toEqual([
    { deliveryId: b, type: 'dismissed' },
    { deliveryId: a, type: 'opened' },
  ]);
  expect(await h.db.notificationEngagement.findUnique({ where: { notificationId: n.notificationId } })).toMatchObject({ received: 0, opened: 1, dismissed: 1, clicked: 0 });
});

it('a batch of bad items only is answered 200 with every item refused', async () => {
  const res = await post({ events: [{ deliveryId: randomUUID(), type: 'opened' }] });
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ accepted: [], refused: [expect.objectContaining({ index: 0, reason: 'unknown_delivery' })] });
});

it('a dry run’s deliveries were never sent: refused', async () => {
  const n = await deliveredNotification(h, t.project.id, { sent: 1, dryRun: true });
  const res = await post({ events: [{ deliveryId: n.sentIds[0], type: 'received' }] });
  expect(res.body.refused).toEqual([expect.objectContaining({ reason: 'not_sent' })]);
});

it.each([
  ['no events', {}, 'events'],
  ['events not a list', { events: 'opened' }, 'events'],
  ['an empty list', { events: [] }, 'events'],
  ['an event over 1 KB', { events: [{ deliveryId: randomUUID(), type: 'opened', action: 'x'.repeat(2000) }] }, 'events.0'],
  ['more than 1,000 events', { events: Array.from({ length: 1001 }, () => ({ deliveryId: randomUUID(), type: 'opened' })) }, 'events'],
])('%s: 400 naming events', async (_name, body, path) => {
  const res = await post(body);
  expect(res.status).toBe(400);
  expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request', details: [expect.objectContaining({ path })] });
});

describe('series', () => {
  it('a label outside FCM’s pattern is a 400; an unknown template a 404', async () => {
    const bad = await h.get(`/push/analytics-labels/${encodeURIComponent('no spaces')}/engagement`, { apiKey: t.apiKey.key });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual([expect.objectContaining({ path: 'label' })]);
    const long = await h.get(`/push/analytics-labels/${'a'.repeat(51)}/engagement`, { apiKey: t.apiKey.key });
    expect(long.status).toBe(400);
    const missing = await h.get(`/push-templates/${randomUUID()}/engagement`, { apiKey: t.apiKey.key });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('Template not found');
    expect((await h.get('/push-templates/nope/engagement', { apiKey: t.apiKey.key })).status).toBe(400);
  });
});

describe('analyticsLabel', () => {
  it.each(['has space', 'a'.repeat(51), '', 'ünïcode', 'slash/label'])('%j is refused on sends and templates with a 400 naming it', async (label) => {
    const s = await sendableProject(h);
    const send = await h.post('/push/send', { apiKey: s.apiKey.key, body: { userId: 'u', templateId: s.templateId, variables: s.variables, analyticsLabel: label } });
    expect(send.status).toBe(400);
    expect(send.body.details).toEqual([expect.objectContaining({ path: 'analyticsLabel' })]);
    const bulk = await h.post('/push/send-bulk', { apiKey: s.apiKey.key, body: { userIds: ['u'], templateId: s.templateId, variables: s.variables, analyticsLabel: label } });
    expect(bulk.status).toBe(400);
    const template = await h.post('/push-templates', { token: s.owner.accessToken, body: { projectId: s.project.id, name: 'labelled', title: 'a', body: 'b', options: { analyticsLabel: label } } });
    expect(template.status).toBe(400);
    expect(template.body.details).toEqual([expect.objectContaining({ path: 'options.analyticsLabel' })]);
  });

  it("FCM's whole alphabet is accepted, 50 characters at most", async () => {
    const s = await sendableProject(h);
    for (const label of ['aZ09-_.~%', 'x'.repeat(50)]) {
      const send = await h.post('/push/send', { apiKey: s.apiKey.key, body: { userId: 'u', templateId: s.templateId, variables: s.variables, analyticsLabel: label } });
      expect(send.status).toBe(202);
      expect((await h.db.notification.findUniqueOrThrow({ where: { id: send.body.notificationId } })).options).toEqual({ analyticsLabel: label });
    }
  });
});
