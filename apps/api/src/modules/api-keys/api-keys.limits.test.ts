import { createApiKey, createProject, expectError, startApi, unique, type Harness } from '@herald/testing';
import { tooManyKeys } from './api-keys.service';

/**
 * Hardening: no bound per project. Limits count per credential, and a project could create keys
 * without end: twenty keys made twenty send-bulk allowances. Keys per project are capped
 * (API_KEYS_PER_PROJECT, 409 past it), and a per-project limit over all credentials can be set
 * (RATE_LIMIT_PROJECT_SEND, 1,000 a minute by default).
 */
let h: Harness;

beforeAll(async () => {
  h = await startApi({ QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-project-limits`, API_KEYS_PER_PROJECT: '3', RATE_LIMIT_PROJECT_SEND: '5' });
});
afterAll(() => h.close());

describe('API keys per project', () => {
  it('a fourth key is a 409 naming the cap; deleting one makes room', async () => {
    const owner = await h.user();
    const project = await createProject(h, owner);
    const create = () => h.post(`/projects/${project.id}/api-keys`, { token: owner.accessToken, body: { name: unique('key') } });
    const made = [await create(), await create(), await create()];
    expect(made.map((r) => r.status)).toEqual([201, 201, 201]);
    expectError(await create(), 409, tooManyKeys(3));
    expect(await h.db.apiKey.count({ where: { projectId: project.id } })).toBe(3);
    expect((await h.delete(`/projects/${project.id}/api-keys/${made[0].body.id}`, { token: owner.accessToken })).status).toBe(200);
    expect((await create()).status).toBe(201);
  });

  it('holds under concurrent creations', async () => {
    const owner = await h.user();
    const project = await createProject(h, owner);
    const results = await Promise.all(Array.from({ length: 8 }, () => h.post(`/projects/${project.id}/api-keys`, { token: owner.accessToken, body: { name: unique('key') } })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    expect(results.filter((r) => r.status === 409)).toHaveLength(5);
    expect(await h.db.apiKey.count({ where: { projectId: project.id } })).toBe(3);
  });
});

describe('RATE_LIMIT_PROJECT_SEND', () => {
  it('counts the sends of all of a project’s keys together; another project is not affected', async () => {
    const owner = await h.user();
    const project = await createProject(h, owner);
    const other = await createProject(h, owner);
    for (const p of [project, other]) {
      await h.db.pushConfig.create({ data: { projectId: p.id, enabled: true } });
      await h.db.providerConfig.create({ data: { projectId: p.id, provider: 'fcm', name: 'fcm', priority: 1, config: {}, secrets: 'sealed', keyId: 'k' } });
    }
    const template = await h.db.pushTemplate.create({ data: { projectId: project.id, name: 'hello', title: 'Hi', body: 'there' } });
    const otherTemplate = await h.db.pushTemplate.create({ data: { projectId: other.id, name: 'hello', title: 'Hi', body: 'there' } });
    const keys = [await createApiKey(h, project.id), await createApiKey(h, project.id), await createApiKey(h, project.id)];
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const key = keys[i % keys.length].key;
      const res = i % 2 ? await h.post('/push/send-bulk', { apiKey: key, body: { userIds: ['a', 'b'], templateId: template.id } }) : await h.post('/push/send', { apiKey: key, body: { userId: 'a', templateId: template.id } });
      statuses.push(res.status);
      if (res.status === 429) expectError(res, 429, 'Too many requests, please try again later');
    }
    expect(statuses).toEqual([202, 202, 202, 202, 202, 429]);
    expect(await h.db.notification.count({ where: { projectId: project.id } })).toBe(5);
    const otherKey = await createApiKey(h, other.id);
    expect((await h.post('/push/send', { apiKey: otherKey.key, body: { userId: 'a', templateId: otherTemplate.id } })).status).toBe(202);
  });
});
