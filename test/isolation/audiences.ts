import { Prisma } from '@herald/db';
import type { IsolationTable } from './types';

const victimProject = (ids: Record<string, string>) => ({ projectId: ids.projectId });
const filter = { field: 'tags.plan', op: 'eq', value: 'pro' };

/** Device attributes, segments and audience counts: key-or-JWT routes by project, JWT routes by project and segment id. */
export const audiencesTable: IsolationTable = {
  async setup(h, victim) {
    const device = await h.post('/push/register-device', {
      apiKey: victim.apiKey.key,
      body: { userId: 'victim-audience-user', deviceToken: 'victim-audience-token', provider: 'fcm', platform: 'android', tags: { plan: 'pro' }, timezone: 'UTC' },
    });
    const segment = await h.post(`/projects/${victim.project.id}/segments`, { token: victim.owner.accessToken, body: { name: 'victim segment', filter } });
    if (device.status !== 201 || segment.status !== 201) throw new Error(`audiences setup failed: ${device.text} ${segment.text}`);
    return { segmentId: segment.body.id };
  },
  cases: [
    { name: '/push/users/{userId}/attributes?projectId=victim', method: 'PATCH', path: () => '/push/users/victim-audience-user/attributes', query: victimProject, body: () => ({ tags: { plan: 'free' } }), acceptsKey: true },
    { name: '/push/users/attributes?projectId=victim', method: 'POST', path: () => '/push/users/attributes', query: victimProject, body: () => ({ users: [{ userId: 'victim-audience-user', timezone: 'Europe/Berlin' }] }), acceptsKey: true },
    { name: '/push/audience/count?projectId=victim', method: 'POST', path: () => '/push/audience/count', query: victimProject, body: () => ({ filter }), acceptsKey: true },
    { name: "/push/audience/count with the victim's segment", method: 'POST', path: () => '/push/audience/count', query: (ids) => ({ projectId: ids.strangerProjectId }), body: (ids) => ({ segmentId: ids.segmentId }), acceptsKey: true },
    // A broadcast to the victim's segment from the stranger's own project: the segment is not found.
    { name: "/push/broadcast to the victim's segment", method: 'POST', path: () => '/push/broadcast', query: (ids) => ({ projectId: ids.strangerProjectId }), body: (ids) => ({ audience: { segmentId: ids.segmentId }, templateId: ids.segmentId }), acceptsKey: true },
    { name: '/projects/{projectId}/segments', method: 'GET', path: (ids) => `/projects/${ids.projectId}/segments` },
    { name: '/projects/{projectId}/segments', method: 'POST', path: (ids) => `/projects/${ids.projectId}/segments`, body: () => ({ name: 'intruder', filter }) },
    { name: '/projects/{projectId}/segments/{segmentId}', method: 'GET', path: (ids) => `/projects/${ids.projectId}/segments/${ids.segmentId}` },
    { name: '/projects/{projectId}/segments/{segmentId}', method: 'PUT', path: (ids) => `/projects/${ids.projectId}/segments/${ids.segmentId}`, body: () => ({ name: 'stolen' }) },
    { name: '/projects/{projectId}/segments/{segmentId}', method: 'PATCH', path: (ids) => `/projects/${ids.projectId}/segments/${ids.segmentId}`, body: () => ({ filter: { field: 'platform', op: 'eq', value: 'ios' } }) },
    { name: '/projects/{projectId}/segments/{segmentId}', method: 'DELETE', path: (ids) => `/projects/${ids.projectId}/segments/${ids.segmentId}` },
    // The victim's segment id under the stranger's own project, where the stranger is an admin: still 404.
    { name: '{strangerProjectId}/segments/{victim segmentId}', method: 'GET', path: (ids) => `/projects/${ids.strangerProjectId}/segments/${ids.segmentId}` },
    { name: '{strangerProjectId}/segments/{victim segmentId}', method: 'PUT', path: (ids) => `/projects/${ids.strangerProjectId}/segments/${ids.segmentId}`, body: () => ({ name: 'stolen' }) },
    { name: '{strangerProjectId}/segments/{victim segmentId}', method: 'PATCH', path: (ids) => `/projects/${ids.strangerProjectId}/segments/${ids.segmentId}`, body: () => ({ name: 'stolen' }) },
    { name: '{strangerProjectId}/segments/{victim segmentId}', method: 'DELETE', path: (ids) => `/projects/${ids.strangerProjectId}/segments/${ids.segmentId}` },
  ],
  async verify(h, ids) {
    const device = await h.db.device.findFirstOrThrow({ where: { deviceToken: 'victim-audience-token' } });
    expect(device).toMatchObject({ projectId: ids.projectId, tags: { plan: 'pro' }, timezone: 'UTC' });
    const segment = await h.db.segment.findUniqueOrThrow({ where: { id: ids.segmentId } });
    expect(segment).toMatchObject({ projectId: ids.projectId, name: 'victim segment', filter });
    expect(await h.db.segment.count({ where: { projectId: ids.projectId } })).toBe(1);
    expect(await h.db.notification.count({ where: { audience: { not: Prisma.DbNull }, projectId: { in: [ids.projectId, ids.strangerProjectId] } } })).toBe(0);
  },
};
