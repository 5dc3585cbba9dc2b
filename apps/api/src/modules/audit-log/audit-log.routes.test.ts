import { hashSecret, randomToken } from '@herald/core';
import type { OpenAPIV3_1 } from 'openapi-types';
import { addMember, createApiKey, createProject, PASSWORD, providerBody, rsaKey, startApi, unique, uniqueEmail, type Harness, type RequestOptions, type Session } from '@herald/testing';
import { victimState } from '../../../../../test/isolation/victim-state';

/**
 * The audit log's coverage, walked from the API document: every mutating operation is either in
 * AUDITED, with a request that changes data and must write exactly one entry, or in NOT_AUDITED with
 * the reason. A new operation in neither fails the first test (docs/architecture.md#audit-log).
 */

let h: Harness;
beforeAll(async () => {
  h = await startApi({ WEBHOOK_HTTP_HOSTS: 'hooks.internal.test' });
});
afterAll(() => h.close());

const { privateKey } = rsaKey();

/** A project admin (account role project_admin) and a project of theirs. */
interface World {
  admin: Session;
  projectId: string;
}

interface Call extends RequestOptions {
  method: string;
  path: string;
}

type Sample = (w: World) => Promise<Call>;

const asAdmin = (w: World, call: Call): Call => ({ token: w.admin.accessToken, ...call });
const inProject = (w: World) => ({ projectId: w.projectId });

async function api(call: Call) {
  const res = await h.request(call.method, call.path, call);
  if (res.status >= 300) throw new Error(`setup ${call.method} ${call.path}: ${res.status} ${res.text}`);
  return res.body;
}

const segment = (w: World) => api(asAdmin(w, { method: 'POST', path: `/projects/${w.projectId}/segments`, body: { name: unique('seg'), filter: { field: 'platform', op: 'eq', value: 'web' } } }));
const pushConfig = (w: World) => api(asAdmin(w, { method: 'POST', path: '/push-config', query: inProject(w), body: {} }));
const provider = async (w: World) => {
  await pushConfig(w);
  return api(asAdmin(w, { method: 'POST', path: '/push-config/providers', query: inProject(w), body: providerBody(privateKey) }));
};
const template = (w: World) => api(asAdmin(w, { method: 'POST', path: '/push-templates', body: { projectId: w.projectId, name: unique('tpl'), title: 'Hi {{name}}', body: 'Body' } }));
const webhook = (w: World) => api(asAdmin(w, { method: 'POST', path: `/projects/${w.projectId}/webhooks`, body: { url: 'https://hooks.example.com/herald', events: ['notification.completed'] } }));
const invite = async (w: World, token = randomToken(32)) => {
  const row = await h.db.invite.create({ data: { projectId: w.projectId, email: uniqueEmail('invitee'), tokenHash: hashSecret(token), expiresAt: new Date(Date.now() + 86_400_000) } });
  return { id: row.id, token };
};

/** A request per audited operation, changing data in the world's project. */
const AUDITED: Record<string, Sample> = {
  'POST /projects': async (w) => asAdmin(w, { method: 'POST', path: '/projects', body: { name: unique('project') } }),
  'DELETE /projects/{projectId}': async (w) => asAdmin(w, { method: 'DELETE', path: `/projects/${w.projectId}` }),
  'DELETE /projects/{projectId}/members/{userId}': async (w) => {
    const member = await h.user();
    await addMember(h, w.projectId, member);
    return asAdmin(w, { method: 'DELETE', path: `/projects/${w.projectId}/members/${member.id}` });
  },
  'POST /projects/invite': async (w) => asAdmin(w, { method: 'POST', path: '/projects/invite', body: { email: uniqueEmail('new'), projectId: w.projectId } }),
  'POST /projects/accept-invite': async (w) => {
    const { token } = await invite(w);
    return { method: 'POST', path: '/projects/accept-invite', body: { token, firstName: 'Ada', lastName: 'L', password: PASSWORD } };
  },
  'POST /projects/resend-invite/{inviteId}': async (w) => asAdmin(w, { method: 'POST', path: `/projects/resend-invite/${(await invite(w)).id}` }),
  'DELETE /projects/cancel-invite/{inviteId}': async (w) => asAdmin(w, { method: 'DELETE', path: `/projects/cancel-invite/${(await invite(w)).id}` }),
  'POST /projects/{projectId}/api-keys': async (w) => asAdmin(w, { method: 'POST', path: `/projects/${w.projectId}/api-keys`, body: { name: 'k' } }),
  'PATCH /projects/{projectId}/api-keys/{keyId}': async (w) => asAdmin(w, { method: 'PATCH', path: `/projects/${w.projectId}/api-keys/${(await createApiKey(h, w.projectId)).id}`, body: { enabled: false } }),
  'DELETE /projects/{projectId}/api-keys/{keyId}': async (w) => asAdmin(w, { method: 'DELETE', path: `/projects/${w.projectId}/api-keys/${(await createApiKey(h, w.projectId)).id}` }),
  'POST /projects/{projectId}/segments': async (w) => asAdmin(w, { method: 'POST', path: `/projects/${w.projectId}/segments`, body: { name: 'web', filter: { field: 'platform', op: 'eq', value: 'web' } } }),
  'PUT /projects/{projectId}/segments/{segmentId}': async (w) =>
    asAdmin(w, { method: 'PUT', path: `/projects/${w.projectId}/segments/${(await segment(w)).id}`, body: { name: 'ios', filter: { field: 'platform', op: 'eq', value: 'ios' } } }),
  'PATCH /projects/{projectId}/segments/{segmentId}': async (w) => asAdmin(w, { method: 'PATCH', path: `/projects/${w.projectId}/segments/${(await segment(w)).id}`, body: { description: 'd' } }),
  'DELETE /projects/{projectId}/segments/{segmentId}': async (w) => asAdmin(w, { method: 'DELETE', path: `/projects/${w.projectId}/segments/${(await segment(w)).id}` }),
  'PUT /projects/{projectId}/settings': async (w) => asAdmin(w, { method: 'PUT', path: `/projects/${w.projectId}/settings`, body: { defaultTimezone: 'Europe/Berlin', quietHours: { start: '22:00', end: '08:00' } } }),
  'POST /push-config': async (w) => asAdmin(w, { method: 'POST', path: '/push-config', query: inProject(w), body: {} }),
  'PUT /push-config': async (w) => {
    await pushConfig(w);
    return asAdmin(w, { method: 'PUT', path: '/push-config', query: inProject(w), body: { enabled: false } });
  },
  'POST /push-config/providers': async (w) => {
    await pushConfig(w);
    return asAdmin(w, { method: 'POST', path: '/push-config/providers', query: inProject(w), body: providerBody(privateKey) });
  },
  'PUT /push-config/providers/priorities': async (w) =>
    asAdmin(w, { method: 'PUT', path: '/push-config/providers/priorities', query: inProject(w), body: { providers: [{ id: (await provider(w)).id, priority: 7 }] } }),
  'PUT /push-config/providers/{providerConfigId}': async (w) => asAdmin(w, { method: 'PUT', path: `/push-config/providers/${(await provider(w)).id}`, body: { name: 'renamed' } }),
  'DELETE /push-config/providers/{providerConfigId}': async (w) => asAdmin(w, { method: 'DELETE', path: `/push-config/providers/${(await provider(w)).id}` }),
  'POST /push-templates/import/{projectId}': async (w) => {
    const raw = new FormData();
    raw.append('file', new Blob([JSON.stringify({ templates: [{ name: 'imported', title: 'T', body: 'B' }] })], { type: 'application/json' }), 'templates.json');
    return asAdmin(w, { method: 'POST', path: `/push-templates/import/${w.projectId}`, raw });
  },
  'POST /push-templates': async (w) => asAdmin(w, { method: 'POST', path: '/push-templates', body: { projectId: w.projectId, name: 'new', title: 'T', body: 'B' } }),
  'PUT /push-templates/{id}': async (w) => asAdmin(w, { method: 'PUT', path: `/push-templates/${(await template(w)).id}`, query: inProject(w), body: { title: 'Changed' } }),
  'DELETE /push-templates/{id}': async (w) => asAdmin(w, { method: 'DELETE', path: `/push-templates/${(await template(w)).id}` }),
  'POST /projects/{projectId}/webhooks': async (w) => asAdmin(w, { method: 'POST', path: `/projects/${w.projectId}/webhooks`, body: { url: 'https://hooks.example.com/x', events: ['notification.completed'] } }),
  'PUT /projects/{projectId}/webhooks/{webhookId}': async (w) => asAdmin(w, { method: 'PUT', path: `/projects/${w.projectId}/webhooks/${(await webhook(w)).id}`, body: { enabled: false } }),
  'DELETE /projects/{projectId}/webhooks/{webhookId}': async (w) => asAdmin(w, { method: 'DELETE', path: `/projects/${w.projectId}/webhooks/${(await webhook(w)).id}` }),
  'POST /projects/{projectId}/webhooks/{webhookId}/rotate-secret': async (w) => asAdmin(w, { method: 'POST', path: `/projects/${w.projectId}/webhooks/${(await webhook(w)).id}/rotate-secret` }),
  'POST /push/notifications/{notificationId}/cancel': async (w) => {
    await provider(w);
    const { id: templateId } = await template(w);
    const sendAt = new Date(Date.now() + 3_600_000).toISOString();
    const sent = await api(asAdmin(w, { method: 'POST', path: '/push/send', query: inProject(w), body: { userId: 'u1', templateId, variables: { name: 'a' }, sendAt } }));
    return asAdmin(w, { method: 'POST', path: `/push/notifications/${sent.notificationId}/cancel`, query: inProject(w) });
  },
  'POST /push/notifications/{notificationId}/resume': async (w) => {
    // A staged rollout its worker halted after the first stage (written directly: no worker runs here).
    const { id: templateId } = await template(w);
    const rollout = { stages: [10, 100], waitSeconds: 0, haltWhen: { failureRate: 0.1 }, currentStage: 0, stageFigures: [], haltedAt: new Date().toISOString(), haltReason: 'Failure rate 50 % over the bound 10 % in stage 1' };
    const halted = await h.db.notification.create({ data: { projectId: w.projectId, templateId, userIds: [], variables: {}, audience: { all: true }, status: 'halted', fannedOut: true, rollout } });
    return asAdmin(w, { method: 'POST', path: `/push/notifications/${halted.id}/resume`, query: inProject(w) });
  },
};

/** Mutating operations that write no entry, and why (docs/audit.md#what-is-not-recorded). */
const NOT_AUDITED: Record<string, string> = {
  'POST /push/send': 'sending: the notification itself is the record (only a cancel is audited)',
  'POST /push/send-bulk': 'sending: the notification itself is the record',
  'POST /push/broadcast': 'sending: the notification itself is the record (only a cancel is audited)',
  'POST /push/register-device': 'device data written by the customer backend, not a change to the project',
  'POST /push/unregister-device': 'device data written by the customer backend',
  'POST /push/users/attributes': 'device data written by the customer backend',
  'PATCH /push/users/{userId}/attributes': 'device data written by the customer backend',
  'POST /push/audience/count': 'a read (POST for its filter body)',
  'POST /push/events': 'engagement reported by the customer backend about its deliveries, not a change to the project',
  'POST /push-templates/preview': 'a read (renders without storing)',
  'POST /push-config/providers/{providerConfigId}/test': 'a read (obtains an access token, stores nothing)',
  'POST /projects/{projectId}/webhooks/{webhookId}/test': 'queues a test delivery; no setting changes',
  'POST /auth/signup': 'an account, not a project: the audit log is per project',
  'POST /auth/signin': 'an account session',
  'POST /auth/refresh': 'an account session',
  'POST /auth/logout': 'an account session',
  'POST /auth/request-password-reset': 'an account',
  'POST /auth/reset-password': 'an account',
  'POST /auth/change-password': 'an account',
};

const MUTATING = new Set(['post', 'put', 'patch', 'delete']);

let mutating: string[] = [];
beforeAll(async () => {
  const doc = (await h.get('/openapi.json')).body as OpenAPIV3_1.Document;
  mutating = Object.entries(doc.paths ?? {}).flatMap(([path, item]) => Object.keys(item ?? {}).filter((m) => MUTATING.has(m)).map((m) => `${m.toUpperCase()} ${path}`));
});

/** Everything stored about these projects and users (every table, by the isolation table's rules) but the audit log itself. */
async function state(projectIds: string[], userIds: string[]) {
  const states = await Promise.all(projectIds.map((projectId) => victimState(h, { projectId, userIds })));
  return JSON.stringify(states.map(({ AuditEntry: _entries, AuditAnchor: _anchor, ...rest }) => rest));
}

async function projectsOf(userId: string) {
  return (await h.db.projectMember.findMany({ where: { userId }, select: { projectId: true } })).map((m) => m.projectId);
}

describe('every mutating route of the API document', () => {
  it('is either audited (with a sample request here) or listed as not audited, with the reason', () => {
    expect(mutating.length).toBeGreaterThan(30);
    const unlisted = mutating.filter((op) => !(op in AUDITED) && !(op in NOT_AUDITED));
    expect(unlisted).toEqual([]);
    const stale = [...Object.keys(AUDITED), ...Object.keys(NOT_AUDITED)].filter((op) => !mutating.includes(op));
    expect(stale).toEqual([]);
  });

  it.each(Object.keys(AUDITED))('%s changes data and writes exactly one audit entry', async (op) => {
    const admin = await h.user();
    await h.db.user.update({ where: { id: admin.id }, data: { role: 'project_admin' } });
    const project = await createProject(h, admin);
    const w: World = { admin, projectId: project.id };
    const call = await AUDITED[op](w);

    const projectsBefore = await projectsOf(admin.id);
    const entries = () => h.db.auditEntry.count({ where: { projectId: { in: [...new Set([...projectsBefore, w.projectId])] } } });
    const before = await state(projectsBefore, [admin.id]);
    const entriesBefore = await entries();

    const res = await h.request(call.method, call.path, call);
    expect({ op, status: res.status < 300 ? 'ok' : `${res.status} ${res.text}` }).toEqual({ op, status: 'ok' });

    const projectsAfter = [...new Set([...projectsBefore, ...(await projectsOf(admin.id))])];
    const newProjects = projectsAfter.filter((p) => !projectsBefore.includes(p));
    const changed = (await state(projectsBefore, [admin.id])) !== before || newProjects.length > 0;
    expect({ op, changed }).toEqual({ op, changed: true });
    const written = (await entries()) - entriesBefore + (await h.db.auditEntry.count({ where: { projectId: { in: newProjects } } }));
    expect({ op, written }).toEqual({ op, written: 1 });
  });
});
