import { hashSecret, randomToken } from '@herald/core';
import { addMember } from '../fixtures';
import { uniqueEmail } from '../harness';
import type { IsolationCase, IsolationTable } from './types';

/** Projects, team, invites and API keys: every route that names the victim's project or one of its resources. */
export const projectsTable: IsolationTable = {
  async setup(h, victim) {
    const member = await h.user();
    await addMember(h, victim.project.id, member);
    const invite = await h.db.invite.create({
      data: { projectId: victim.project.id, email: uniqueEmail('victim-invitee'), tokenHash: hashSecret(randomToken()), expiresAt: new Date(Date.now() + 86_400_000) },
    });
    return { projectsMemberId: member.id, projectsInviteId: invite.id, projectsKeyId: victim.apiKey.id };
  },
  cases: [
    { name: '/projects/{projectId}', method: 'GET', path: (ids) => `/projects/${ids.projectId}`, acceptsKey: true },
    { name: '/projects/{projectId}', method: 'DELETE', path: (ids) => `/projects/${ids.projectId}` },
    { name: '/projects/{projectId}/overview', method: 'GET', path: (ids) => `/projects/${ids.projectId}/overview` },
    { name: '/projects/{projectId}/team', method: 'GET', path: (ids) => `/projects/${ids.projectId}/team` },
    { name: '/projects/{projectId}/members/{member}', method: 'DELETE', path: (ids) => `/projects/${ids.projectId}/members/${ids.projectsMemberId}` },
    { name: '/projects/{projectId}/members/{owner}', method: 'DELETE', path: (ids) => `/projects/${ids.projectId}/members/${ids.ownerId}` },
    { name: '/projects/{projectId}/invites', method: 'GET', path: (ids) => `/projects/${ids.projectId}/invites` },
    { name: '/projects/invite into the victim project', method: 'POST', path: () => '/projects/invite', body: (ids) => ({ email: uniqueEmail('intruder'), projectId: ids.projectId }) },
    { name: '/projects/resend-invite/{victim invite}', method: 'POST', path: (ids) => `/projects/resend-invite/${ids.projectsInviteId}` },
    { name: '/projects/cancel-invite/{victim invite}', method: 'DELETE', path: (ids) => `/projects/cancel-invite/${ids.projectsInviteId}` },
    { name: '/projects/{projectId}/api-keys', method: 'GET', path: (ids) => `/projects/${ids.projectId}/api-keys` },
    { name: '/projects/{projectId}/api-keys', method: 'POST', path: (ids) => `/projects/${ids.projectId}/api-keys`, body: () => ({ name: 'intruder' }) },
    { name: '/projects/{projectId}/api-keys/{keyId}', method: 'PATCH', path: (ids) => `/projects/${ids.projectId}/api-keys/${ids.projectsKeyId}`, body: () => ({ enabled: false }) },
    { name: '/projects/{projectId}/api-keys/{keyId} scopes and expiry', method: 'PATCH', path: (ids) => `/projects/${ids.projectId}/api-keys/${ids.projectsKeyId}`, body: () => ({ scopes: ['send'], expiresAt: new Date(Date.now() + 60_000).toISOString() }) },
    { name: '/projects/{own project}/api-keys/{victim keyId} scopes', method: 'PATCH', path: (ids) => `/projects/${ids.strangerProjectId}/api-keys/${ids.projectsKeyId}`, body: () => ({ scopes: ['send'] }) },
    { name: '/projects/{projectId}/api-keys/{keyId}', method: 'DELETE', path: (ids) => `/projects/${ids.projectId}/api-keys/${ids.projectsKeyId}` },
    // The victim's key id under the stranger's own project, where the stranger is an admin.
    { name: '/projects/{own project}/api-keys/{victim keyId}', method: 'PATCH', path: (ids) => `/projects/${ids.strangerProjectId}/api-keys/${ids.projectsKeyId}`, body: () => ({ enabled: false }) },
    { name: '/projects/{own project}/api-keys/{victim keyId}', method: 'DELETE', path: (ids) => `/projects/${ids.strangerProjectId}/api-keys/${ids.projectsKeyId}` },
  ] satisfies IsolationCase[],
};
