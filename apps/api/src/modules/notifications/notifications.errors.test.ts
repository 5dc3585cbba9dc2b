import { expectError, startApi, tenant, unique, type Harness } from '@herald/testing';
import { sendableProject } from './test-helpers/sendable';

/** Every send the API refuses: a clear 4xx, and nothing written or queued (docs/api.md#sending). */
let h: Harness;
beforeAll(async () => {
  h = await startApi();
});
afterAll(() => h.close());

/**
 * A refused send leaves no notification row and no job. Other test files share the queue, so the jobs
 * that appeared meanwhile are checked: each must be for an existing notification of another project.
 */
async function nothingQueuedBy(p: { project: { id: string } }, refuse: () => Promise<void>) {
  const jobs = () => h.container.queue.getJobs(['waiting', 'active', 'delayed', 'completed', 'failed']);
  const before = new Set((await jobs()).map((j) => j.id));
  const rows = await h.db.notification.count({ where: { projectId: p.project.id } });
  await refuse();
  expect(await h.db.notification.count({ where: { projectId: p.project.id } })).toBe(rows);
  const added = (await jobs()).filter((j) => !before.has(j.id)).map((j) => j.data.notificationId as string);
  const existing = await h.db.notification.findMany({ where: { id: { in: added } }, select: { projectId: true } });
  expect(existing).toHaveLength(added.length);
  expect(existing.filter((n) => n.projectId === p.project.id)).toEqual([]);
}

describe('checks before queuing', () => {
  it('validation: template id, missing variables, imageUrl, 501 user ids', async () => {
    const p = await sendableProject(h);
    const send = (body: Record<string, unknown>) => h.post('/push/send', { apiKey: p.apiKey.key, body: { userId: 'u1', templateId: p.templateId, variables: p.variables, ...body } });
    await nothingQueuedBy(p, async () => {
      expectError(await send({ templateId: 'nope' }), 400, /templateId/);
      const missing = await send({ variables: { name: 'a' } });
      expectError(missing, 400, 'Missing template variables: count');
      expect(missing.body.details).toEqual([{ path: 'variables.count', message: expect.any(String) }]);
      expectError(await send({ variables: { name: 'a', count: null } }), 400, 'Missing template variables: count');
      expectError(await send({ imageUrl: 'ftp://example.com/a.png' }), 400, /imageUrl/);
      expectError(await send({ imageUrl: 'not a url' }), 400, /imageUrl/);
      const bulk = await h.post('/push/send-bulk', { apiKey: p.apiKey.key, body: { userIds: Array.from({ length: 501 }, (_, i) => `u${i}`), templateId: p.templateId, variables: p.variables } });
      expectError(bulk, 400, /at most 500/);
      expect(bulk.body.details[0].path).toBe('userIds');
      expectError(await h.post('/push/send-bulk', { apiKey: p.apiKey.key, body: { userIds: [], templateId: p.templateId } }), 400, /userIds/);
    });
  });

  it('an unknown template is 404', async () => {
    const p = await sendableProject(h);
    await nothingQueuedBy(p, async () => {
      expectError(await h.post('/push/send', { apiKey: p.apiKey.key, body: { userId: 'u1', templateId: '00000000-0000-4000-8000-000000000000' } }), 404, 'Template not found');
    });
  });

  it('push not configured, disabled, or without an enabled provider: 409', async () => {
    const p = await sendableProject(h);
    const send = () => h.post('/push/send', { apiKey: p.apiKey.key, body: { userId: 'u1', templateId: p.templateId, variables: p.variables } });
    await nothingQueuedBy(p, async () => {
      expect((await h.put(`/push-config/providers/${p.providerId}`, { token: p.owner.accessToken, body: { enabled: false } })).status).toBe(200);
      expectError(await send(), 409, 'No enabled push provider is configured for this project');
      expect((await h.put('/push-config', { ...p.auth, body: { enabled: false } })).status).toBe(200);
      expectError(await send(), 409, 'Push notifications are disabled for this project');
    });
    // There is no endpoint that removes a push config: a project that never had one.
    const unconfigured = await tenant(h);
    const tpl = await h.post('/push-templates', { token: unconfigured.owner.accessToken, body: { projectId: unconfigured.project.id, name: unique('tpl'), title: 'Hi', body: 'there' } });
    await nothingQueuedBy(unconfigured, async () => {
      expectError(await h.post('/push/send', { apiKey: unconfigured.apiKey.key, body: { userId: 'u1', templateId: tpl.body.id } }), 409, 'Push notifications are not configured for this project');
    });
  });

  it('with a JWT, projectId is required; an Idempotency-Key over 255 characters is a 400', async () => {
    const p = await sendableProject(h);
    await nothingQueuedBy(p, async () => {
      expectError(await h.post('/push/send', { token: p.owner.accessToken, body: { userId: 'u1', templateId: p.templateId, variables: p.variables } }), 400, 'projectId query parameter is required');
      const long = await h.post('/push/send', { apiKey: p.apiKey.key, body: { userId: 'u1', templateId: p.templateId, variables: p.variables }, headers: { 'Idempotency-Key': 'k'.repeat(256) } });
      expectError(long, 400, 'Invalid header: Idempotency-Key: Idempotency-Key must be at most 255 characters');
      expect(long.body.details).toEqual([{ path: 'Idempotency-Key', message: 'Idempotency-Key must be at most 255 characters' }]);
      // Header names are case-insensitive.
      const bulk = await h.post('/push/send-bulk', { apiKey: p.apiKey.key, body: { userIds: ['u1'], templateId: p.templateId, variables: p.variables }, headers: { 'idempotency-key': 'k'.repeat(256) } });
      expectError(bulk, 400, /Idempotency-Key/);
    });
  });
});

describe('reading notifications', () => {
  it('an unknown id is 404, a malformed one 400, a page out of range 400', async () => {
    const p = await sendableProject(h);
    expectError(await h.get('/push/notifications/00000000-0000-4000-8000-000000000000', { apiKey: p.apiKey.key }), 404, 'Notification not found');
    expectError(await h.get('/push/notifications/nope', { apiKey: p.apiKey.key }), 400, /notificationId/);
    expectError(await h.get('/push/notifications', { apiKey: p.apiKey.key, query: { limit: 101 } }), 400, /limit/);
    expectError(await h.get('/push/notifications', { apiKey: p.apiKey.key, query: { page: 0 } }), 400, /page/);
  });
});
