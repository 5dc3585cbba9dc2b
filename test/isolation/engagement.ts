import { randomUUID } from 'node:crypto';
import { tenant } from '../fixtures';
import type { IsolationTable } from './types';

const victimProject = (ids: Record<string, string>) => ({ projectId: ids.projectId });

/**
 * Engagement events, funnels and series. The victim's delivery id posted into another project is not
 * a 403/404 but a refused item, exactly like an unknown id: checked in `verify` (and in
 * engagement.security.test.ts).
 */
export const engagementTable: IsolationTable = {
  async setup(h, victim) {
    const template = await h.db.pushTemplate.create({ data: { projectId: victim.project.id, name: 'engagement-isolation', title: 'Hi', body: 'There' } });
    const notification = await h.db.notification.create({
      data: { projectId: victim.project.id, templateId: template.id, userIds: ['victim-user'], variables: {}, recipients: 1, devices: 1, pendingDeliveries: 1, status: 'processing', options: { analyticsLabel: 'victim-label' } },
    });
    const deliveryId = randomUUID();
    await h.db.delivery.create({ data: { id: deliveryId, notificationId: notification.id, userId: 'victim-user', deviceId: randomUUID(), platform: 'ios', status: 'sent', updatedAt: new Date(Date.now() - 60_000) } });
    await h.db.$executeRaw`UPDATE "Notification" SET "status" = 'completed', "sent" = 1, "pendingDeliveries" = 0 WHERE "id" = ${notification.id}::uuid`;
    const res = await h.post('/push/events', { apiKey: victim.apiKey.key, body: { events: [{ deliveryId, type: 'received' }] } });
    if (res.status !== 200 || res.body.accepted.length !== 1) throw new Error(`engagement setup failed: ${res.text}`);
    return { engagementTemplateId: template.id, engagementDeliveryId: deliveryId, engagementNotificationId: notification.id };
  },
  cases: [
    {
      name: '/push/events?projectId=victim',
      method: 'POST',
      path: () => '/push/events',
      query: victimProject,
      body: (ids) => ({ events: [{ deliveryId: ids.engagementDeliveryId, type: 'opened' }] }),
      acceptsKey: true,
    },
    { name: '/push/notifications/{id}/events?projectId=victim', method: 'GET', path: (ids) => `/push/notifications/${ids.engagementNotificationId}/events`, query: victimProject, acceptsKey: true },
    { name: '/push/notifications/{id}/events in the own project', method: 'GET', path: (ids) => `/push/notifications/${ids.engagementNotificationId}/events`, query: (ids) => ({ projectId: ids.strangerProjectId }), acceptsKey: true },
    { name: "/push-templates/{id}/engagement of the victim's template", method: 'GET', path: (ids) => `/push-templates/${ids.engagementTemplateId}/engagement`, acceptsKey: true },
    { name: '/push/analytics-labels/{label}/engagement?projectId=victim', method: 'GET', path: () => '/push/analytics-labels/victim-label/engagement', query: victimProject, acceptsKey: true },
  ],
  async verify(h, ids) {
    const other = await tenant(h);
    const unknownId = randomUUID();
    const res = await h.post('/push/events', { apiKey: other.apiKey.key, body: { events: [{ deliveryId: ids.engagementDeliveryId, type: 'opened' }, { deliveryId: unknownId, type: 'opened' }] } });
    expect(res.status).toBe(200);
    expect(res.body.accepted).toEqual([]);
    const [theirs, unknown] = res.body.refused;
    expect(theirs).toEqual({ ...unknown, index: 0, deliveryId: ids.engagementDeliveryId });
    expect(unknown).toMatchObject({ index: 1, deliveryId: unknownId, reason: 'unknown_delivery' });
    const events = await h.db.deliveryEvent.findMany({ where: { deliveryId: ids.engagementDeliveryId }, select: { type: true, projectId: true } });
    expect(events).toEqual([{ type: 'received', projectId: ids.projectId }]);
  },
};
