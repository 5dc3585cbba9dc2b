import type { IsolationTable } from './types';

const victimProject = (ids: Record<string, string>) => ({ projectId: ids.projectId });
const ownProject = (ids: Record<string, string>) => ({ projectId: ids.strangerProjectId });

/** Devices, sending and notifications: key-or-JWT routes, by project and by id. */
export const pushTable: IsolationTable = {
  async setup(h, victim) {
    const device = await h.post('/push/register-device', {
      apiKey: victim.apiKey.key,
      body: { userId: 'victim-user', deviceToken: 'victim-device-token', provider: 'fcm', platform: 'ios' },
    });
    if (device.status !== 201) throw new Error(`push setup failed: ${device.text}`);
    const template = await h.db.pushTemplate.create({ data: { projectId: victim.project.id, name: 'push-isolation', title: 'Hi', body: 'There' } });
    const notification = await h.db.notification.create({
      data: { projectId: victim.project.id, templateId: template.id, userIds: ['victim-user'], variables: {}, recipients: 1, status: 'completed' },
    });
    const scheduled = await h.db.notification.create({
      data: { projectId: victim.project.id, templateId: template.id, userIds: ['victim-user'], variables: {}, recipients: 1, status: 'scheduled', sendAt: new Date(Date.now() + 3600_000) },
    });
    const halted = await h.db.notification.create({
      data: {
        projectId: victim.project.id, templateId: template.id, userIds: [], variables: {}, status: 'halted', fannedOut: true,
        rollout: { stages: [10, 100], waitSeconds: 0, haltWhen: { failureRate: 0.1 }, currentStage: 0, stageFigures: [], haltedAt: new Date().toISOString(), haltReason: 'Failure rate 50 % over the bound 10 % in stage 1' },
      },
    });
    return { pushTemplateId: template.id, notificationId: notification.id, scheduledId: scheduled.id, haltedId: halted.id };
  },
  cases: [
    {
      name: '/push/register-device?projectId=victim',
      method: 'POST',
      path: () => '/push/register-device',
      query: victimProject,
      body: () => ({ userId: 'intruder', deviceToken: 'victim-device-token', provider: 'fcm', platform: 'android' }),
      acceptsKey: true,
    },
    { name: '/push/unregister-device?projectId=victim', method: 'POST', path: () => '/push/unregister-device', query: victimProject, body: () => ({ deviceToken: 'victim-device-token' }), acceptsKey: true },
    { name: '/push/devices/{userId}?projectId=victim', method: 'GET', path: () => '/push/devices/victim-user', query: victimProject },
    { name: '/push/send?projectId=victim', method: 'POST', path: () => '/push/send', query: victimProject, body: (ids) => ({ userId: 'victim-user', templateId: ids.pushTemplateId }), acceptsKey: true },
    { name: "/push/send with the victim's template", method: 'POST', path: () => '/push/send', query: ownProject, body: (ids) => ({ userId: 'victim-user', templateId: ids.pushTemplateId }), acceptsKey: true },
    { name: '/push/send-bulk?projectId=victim', method: 'POST', path: () => '/push/send-bulk', query: victimProject, body: (ids) => ({ userIds: ['victim-user'], templateId: ids.pushTemplateId }), acceptsKey: true },
    { name: '/push/broadcast?projectId=victim', method: 'POST', path: () => '/push/broadcast', query: victimProject, body: (ids) => ({ audience: { all: true }, templateId: ids.pushTemplateId }), acceptsKey: true },
    { name: "/push/broadcast with the victim's template", method: 'POST', path: () => '/push/broadcast', query: ownProject, body: (ids) => ({ audience: { all: true }, templateId: ids.pushTemplateId }), acceptsKey: true },
    { name: '/push/notifications?projectId=victim', method: 'GET', path: () => '/push/notifications', query: victimProject, acceptsKey: true },
    { name: '/push/notifications/{id}?projectId=victim', method: 'GET', path: (ids) => `/push/notifications/${ids.notificationId}`, query: victimProject, acceptsKey: true },
    { name: '/push/notifications/{id} in the own project', method: 'GET', path: (ids) => `/push/notifications/${ids.notificationId}`, query: ownProject, acceptsKey: true },
    { name: '/push/notifications/{id}/cancel?projectId=victim', method: 'POST', path: (ids) => `/push/notifications/${ids.scheduledId}/cancel`, query: victimProject, acceptsKey: true },
    { name: '/push/notifications/{id}/cancel in the own project', method: 'POST', path: (ids) => `/push/notifications/${ids.scheduledId}/cancel`, query: ownProject, acceptsKey: true },
    { name: '/push/notifications/{halted id}/resume?projectId=victim', method: 'POST', path: (ids) => `/push/notifications/${ids.haltedId}/resume`, query: victimProject, acceptsKey: true },
    { name: '/push/notifications/{halted id}/resume in the own project', method: 'POST', path: (ids) => `/push/notifications/${ids.haltedId}/resume`, query: ownProject, acceptsKey: true },
  ],
  async verify(h, ids) {
    const devices = await h.db.device.findMany({ where: { deviceToken: 'victim-device-token' } });
    expect(devices.map((d) => [d.projectId, d.userId, d.platform])).toEqual([[ids.projectId, 'victim-user', 'ios']]);
    expect(await h.db.notification.count({ where: { projectId: ids.projectId, templateId: ids.pushTemplateId } })).toBe(3);
    expect((await h.db.notification.findUniqueOrThrow({ where: { id: ids.scheduledId } })).status).toBe('scheduled');
    expect((await h.db.notification.findUniqueOrThrow({ where: { id: ids.haltedId } })).status).toBe('halted');
  },
};
