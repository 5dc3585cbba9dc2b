import pino from 'pino';
import { createRedis } from '../redis';
import { expectError, providerBody, rsaKey, startApi, startRedis, tenant, waitUntil, type Harness, type PrivateRedis } from '@herald/testing';
import { ProjectCache, type ProjectStateLoaders } from './project-cache';

/**
 * The send path reads API keys, templates, push config and providers from a per-instance cache that
 * is revalidated against Redis on every request. Two instances share one Postgres and one Redis:
 * whatever is changed through one is seen by the other at the very next request.
 */
let a: Harness;
let b: Harness;
beforeAll(async () => {
  [a, b] = await Promise.all([startApi(), startApi()]);
});
afterAll(() => Promise.all([a.close(), b.close()]));

async function sendable() {
  const t = await tenant(a);
  const auth = { token: t.owner.accessToken, query: { projectId: t.project.id } };
  expect((await a.post('/push-config', { ...auth, body: {} })).status).toBe(201);
  const provider = await a.post('/push-config/providers', { ...auth, body: providerBody(rsaKey().privateKey) });
  expect(provider.status).toBe(201);
  const template = await a.post('/push-templates', { token: t.owner.accessToken, body: { projectId: t.project.id, name: 'greeting', title: 'Hi {{name}}', body: 'Welcome' } });
  expect(template.status).toBe(201);
  const sendOn = (h: Harness, variables: Record<string, unknown> = { name: 'Ada' }, templateId = template.body.id as string) =>
    h.post('/push/send', { apiKey: t.apiKey.key, body: { userId: 'user-1', templateId, variables } });
  return { ...t, auth, providerId: provider.body.id as string, templateId: template.body.id as string, sendOn };
}

describe('changes made through one instance are seen by the other at the very next request', () => {
  it('template edits and deletion', async () => {
    const t = await sendable();
    expect((await t.sendOn(b)).status).toBe(202);
    expect((await t.sendOn(b)).status).toBe(202); // now served from B's cache

    const edited = await a.put(`/push-templates/${t.templateId}`, { ...t.auth, body: { body: 'You have {{count}} messages' } });
    expect(edited.body).toMatchObject({ body: 'You have {{count}} messages' });
    expectError(await t.sendOn(b), 400, 'Missing template variables: count');
    expect((await t.sendOn(b, { name: 'Ada', count: 2 })).status).toBe(202);

    expect((await a.delete(`/push-templates/${t.templateId}`, t.auth)).status).toBe(200);
    expectError(await t.sendOn(b, { name: 'Ada', count: 2 }), 404, 'Template not found');
  });

  it('a template created, imported or changed is used at once', async () => {
    const t = await sendable();
    const created = await a.post('/push-templates', { token: t.owner.accessToken, body: { projectId: t.project.id, name: 'second', title: 'T {{x}}', body: 'B' } });
    expect((await t.sendOn(b, { x: 1 }, created.body.id)).status).toBe(202);
    const form = new FormData();
    form.append('file', new Blob([JSON.stringify({ templates: [{ name: 'second', title: 'T {{x}} {{y}}', body: 'B' }] })], { type: 'application/json' }), 'templates.json');
    const imported = await a.post(`/push-templates/import/${t.project.id}`, { raw: form, token: t.owner.accessToken, query: { mode: 'overwrite' } });
    expect(imported.status).toBe(201);
    expectError(await t.sendOn(b, { x: 1 }, created.body.id), 400, 'Missing template variables: y');
  });

  it('push config and providers', async () => {
    const t = await sendable();
    expect((await t.sendOn(b)).status).toBe(202);

    expect((await a.put(`/push-config/providers/${t.providerId}`, { ...t.auth, body: { enabled: false } })).status).toBe(200);
    expectError(await t.sendOn(b), 409, 'No enabled push provider is configured for this project');
    expect((await a.put(`/push-config/providers/${t.providerId}`, { ...t.auth, body: { enabled: true } })).status).toBe(200);
    expect((await t.sendOn(b)).status).toBe(202);

    expect((await a.put('/push-config', { ...t.auth, body: { enabled: false } })).status).toBe(200);
    expectError(await t.sendOn(b), 409, 'Push notifications are disabled for this project');
    expect((await a.put('/push-config', { ...t.auth, body: { enabled: true } })).status).toBe(200);
    expect((await t.sendOn(b)).status).toBe(202);

    expect((await a.delete(`/push-config/providers/${t.providerId}`, t.auth)).status).toBe(200);
    expectError(await t.sendOn(b), 409, 'No enabled push provider is configured for this project');
  });

  it('a deleted project: its key is refused', async () => {
    const t = await sendable();
    expect((await t.sendOn(b)).status).toBe(202);
    expect((await a.delete(`/projects/${t.project.id}`, { token: t.owner.accessToken })).status).toBe(200);
    expectError(await t.sendOn(b), 401, 'Invalid API key');
  });
});

describe('what the cache holds', () => {
  it('is served without Postgres while the version is unchanged, and reloaded when it changes', async () => {
    const t = await sendable();
    expect((await t.sendOn(b)).status).toBe(202);
    // Behind the API's back (no version change): B keeps answering from what it loaded.
    await a.db.pushConfig.update({ where: { projectId: t.project.id }, data: { enabled: false } });
    expect((await t.sendOn(b)).status).toBe(202);
    // The version key vanished, as when Redis loses its data: B reloads.
    await b.container.redis.del(`${b.config.queuePrefix}:project-version:${t.project.id}`);
    expectError(await t.sendOn(b), 409, 'Push notifications are disabled for this project');
    // Again behind the API's back, then a new version, as every write route publishes.
    await a.db.pushConfig.update({ where: { projectId: t.project.id }, data: { enabled: true } });
    expectError(await t.sendOn(b), 409, 'Push notifications are disabled for this project');
    await a.container.projectCache.invalidate([t.project.id]);
    expect((await t.sendOn(b)).status).toBe(202);
  });

  it('while Redis is unreachable, requests read Postgres instead (never a stale answer)', async () => {
    const redis = await startRedis();
    // This one Redis, even on a cluster run: it is the one that goes away.
    const api = await startApi({ REDIS_URL: redis.url, REDIS_CLUSTER_NODES: '' });
    try {
      const t = await tenant(api);
      expect((await api.get(`/projects/${t.project.id}`, { apiKey: t.apiKey.key })).status).toBe(200);
      await redis.stop();
      expect((await api.get(`/projects/${t.project.id}`, { apiKey: t.apiKey.key })).status).toBe(200);
      // Not published to any cache (Redis is down), yet seen at once.
      await api.db.apiKey.update({ where: { id: t.apiKey.id }, data: { enabled: false } });
      expectError(await api.get(`/projects/${t.project.id}`, { apiKey: t.apiKey.key }), 401, 'API key is disabled');
    } finally {
      await api.close();
      await redis.close();
    }
  });
});

describe('ProjectCache: what one request reads', () => {
  let redis: PrivateRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis.close());

  const req = () => ({});
  const logger = pino({ level: 'silent' });
  /** Loaders that count their calls, answer after 20 ms, and fail for the template id 'broken' (once). */
  function countingLoaders() {
    const calls = { apiKey: 0, template: 0, sendReadiness: 0 };
    let broken = true;
    const later = <T>(value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), 20));
    const loaders: ProjectStateLoaders = {
      apiKey: async () => (calls.apiKey++, later(null)),
      template: async (projectId, templateId) => {
        calls.template++;
        if (templateId === 'broken' && broken) {
          broken = false;
          throw new Error('db down');
        }
        return later({ id: templateId, updatedAt: new Date(0), title: projectId, body: 'b', data: null, options: null });
      },
      sendReadiness: async () => (calls.sendReadiness++, later({ pushEnabled: true, hasEnabledProvider: true })),
      settings: async () => ({ defaultTimezone: 'UTC', quietHours: null, deliveryIdInData: true }),
    };
    return { calls, loaders };
  }

  it('one version read per request and project; concurrent loads of one entry share one load', async () => {
    const client = createRedis({ redisUrl: redis.url }, 'loads');
    client.on('error', () => undefined);
    const { calls, loaders } = countingLoaders();
    const cache = new ProjectCache(client, 'test-loads', logger, loaders);
    try {
      await waitUntil(() => client.status === 'ready', 5000, 'connection');
      const r = req();
      const projectId = '22222222-2222-4222-8222-222222222222';
      const first = cache.snapshot(r, projectId);
      expect(cache.snapshot(r, projectId)).toBe(first);
      const snapshot = await first;
      expect(snapshot.projectId).toBe(projectId);
      const templates = await Promise.all([snapshot.template('x'), snapshot.template('x'), snapshot.template('x')]);
      expect(calls.template).toBe(1);
      expect(templates).toEqual(Array(3).fill({ id: 'x', updatedAt: new Date(0), title: projectId, body: 'b', data: null, options: null }));
      await Promise.all([snapshot.sendReadiness(), snapshot.sendReadiness(), snapshot.apiKey('h'), snapshot.apiKey('h')]);
      expect(calls).toEqual({ apiKey: 1, template: 1, sendReadiness: 1 });
      // A failed load is not kept.
      await expect(snapshot.template('broken')).rejects.toThrow('db down');
      expect(await snapshot.template('broken')).toMatchObject({ id: 'broken' });
      expect(calls.template).toBe(3);
    } finally {
      client.disconnect();
    }
  });
});
