import { expectError, startApi, type Harness } from '@herald/testing';
import { sendableProject } from './test-helpers/sendable';

/** Sending and reading notifications across tenants and with bad credentials (docs/api.md#key-or-jwt-endpoints). */
let h: Harness;
beforeAll(async () => {
  h = await startApi();
});
afterAll(() => h.close());

describe('tenancy', () => {
  it("another project's template is 404, and nothing is written in either project", async () => {
    const [a, b] = [await sendableProject(h), await sendableProject(h)];
    expectError(await h.post('/push/send', { apiKey: a.apiKey.key, body: { userId: 'u', templateId: b.templateId, variables: b.variables } }), 404, 'Template not found');
    expect(await h.db.notification.count({ where: { projectId: { in: [a.project.id, b.project.id] } } })).toBe(0);
  });

  it("another project's notification is 404, by key and by a JWT naming the caller's project", async () => {
    const [a, b] = [await sendableProject(h), await sendableProject(h)];
    const sent = await h.post('/push/send', { apiKey: b.apiKey.key, body: { userId: 'u', templateId: b.templateId, variables: b.variables } });
    expect(sent.status).toBe(202);
    expectError(await h.get(`/push/notifications/${sent.body.notificationId}`, { apiKey: a.apiKey.key }), 404, 'Notification not found');
    expectError(await h.get(`/push/notifications/${sent.body.notificationId}`, { token: a.owner.accessToken, query: { projectId: a.project.id } }), 404, 'Notification not found');
    const list = await h.get('/push/notifications', { apiKey: a.apiKey.key });
    expect(list.body.data.map((n: { id: string }) => n.id)).not.toContain(sent.body.notificationId);
  });

  it('a key naming another project is 403; a JWT for a project the caller is not in is 404', async () => {
    const [a, b] = [await sendableProject(h), await sendableProject(h)];
    const body = { userId: 'u', templateId: b.templateId, variables: b.variables };
    expectError(await h.post('/push/send', { apiKey: a.apiKey.key, query: { projectId: b.project.id }, body }), 403, 'This API key belongs to another project');
    expectError(await h.post('/push/send', { token: a.owner.accessToken, query: { projectId: b.project.id }, body }), 404, 'Project not found');
    expect(await h.db.notification.count({ where: { projectId: b.project.id } })).toBe(0);
  });
});

describe('credentials', () => {
  it('no credentials, an unknown key or a disabled key: 401, nothing sent', async () => {
    const p = await sendableProject(h);
    const body = { userId: 'u', templateId: p.templateId, variables: p.variables };
    expectError(await h.post('/push/send', { body }), 401, 'Missing or invalid authorization header');
    expectError(await h.post('/push/send', { apiKey: `hk_${'A'.repeat(40)}`, body }), 401, 'Invalid API key');
    expect((await h.patch(`/projects/${p.project.id}/api-keys/${p.apiKey.id}`, { token: p.owner.accessToken, body: { enabled: false } })).status).toBe(200);
    expectError(await h.post('/push/send', { apiKey: p.apiKey.key, body }), 401, 'API key is disabled');
    expectError(await h.post('/push/send-bulk', { apiKey: p.apiKey.key, body: { userIds: ['u'], templateId: p.templateId } }), 401, 'API key is disabled');
    expect(await h.db.notification.count({ where: { projectId: p.project.id } })).toBe(0);
  });
});
