import { randomUUID } from 'node:crypto';
import { startApi, tenant, type Harness, type Tenant } from '@herald/testing';
import { UNKNOWN_DELIVERY } from './engagement.service';
import { deliveredNotification } from './test-helpers/delivered';

/** Another project's deliveries, templates and labels do not exist for a caller. */
let h: Harness;
let victim: Tenant;
let stranger: Tenant;
beforeAll(async () => {
  h = await startApi();
  victim = await tenant(h);
  stranger = await tenant(h);
});
afterAll(() => h.close());

it("another project's delivery id is refused exactly like an unknown one, and nothing of the victim's moves", async () => {
  const n = await deliveredNotification(h, victim.project.id, { sent: 1, label: 'victim-label' });
  const res = await h.post('/push/events', {
    apiKey: stranger.apiKey.key,
    body: { events: [{ deliveryId: n.sentIds[0], type: 'opened' }, { deliveryId: randomUUID(), type: 'opened' }] },
  });
  expect(res.status).toBe(200);
  const [theirs, unknown] = res.body.refused;
  expect({ ...theirs, index: 1, deliveryId: unknown.deliveryId }).toEqual(unknown);
  expect(theirs.message).toBe(UNKNOWN_DELIVERY);
  expect(await h.db.deliveryEvent.count({ where: { notificationId: n.notificationId } })).toBe(0);
  expect(await h.db.notificationEngagement.count({ where: { notificationId: n.notificationId } })).toBe(0);
  expect(await h.db.engagementDaily.count({ where: { projectId: stranger.project.id } })).toBe(0);
});

it("a key posting into another project gets 403; a JWT of a stranger 404; no credential 401", async () => {
  const body = { events: [{ deliveryId: randomUUID(), type: 'opened' }] };
  expect((await h.post('/push/events', { apiKey: stranger.apiKey.key, query: { projectId: victim.project.id }, body })).status).toBe(403);
  expect((await h.post('/push/events', { token: stranger.owner.accessToken, query: { projectId: victim.project.id }, body })).status).toBe(404);
  expect((await h.post('/push/events', { body })).status).toBe(401);
});

it("another project's template series is a 404, its label series reads the caller's own (empty) counters", async () => {
  const n = await deliveredNotification(h, victim.project.id, { sent: 2, label: 'shared-name' });
  const template = await h.get(`/push-templates/${n.templateId}/engagement`, { apiKey: stranger.apiKey.key });
  expect(template.status).toBe(404);
  const label = await h.get('/push/analytics-labels/shared-name/engagement', { apiKey: stranger.apiKey.key });
  expect(label.status).toBe(200);
  expect(label.body.days.every((d: { sent: number }) => d.sent === 0)).toBe(true);
  const own = await h.get('/push/analytics-labels/shared-name/engagement', { apiKey: victim.apiKey.key });
  expect(own.body.days.some((d: { sent: number }) => d.sent === 2)).toBe(true);
});

it("another project's notification has no events list (404, as an unknown one)", async () => {
  const n = await deliveredNotification(h, victim.project.id, { sent: 1 });
  const res = await h.get(`/push/notifications/${n.notificationId}/events`, { apiKey: stranger.apiKey.key });
  expect(res.status).toBe(404);
  expect(res.body.message).toBe('Notification not found');
});
