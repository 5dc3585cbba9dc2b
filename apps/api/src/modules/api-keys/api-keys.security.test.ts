import { randomUUID } from 'node:crypto';
import { addMember, createApiKey, expectError, startApi, tenant, type Harness } from '@herald/testing';
import { keysAdmin } from './test-helpers/keys-admin';

/** API keys: credentials, roles and tenancy: who may do what, and what never leaks. */

let h: Harness;
beforeAll(async () => {
  h = await startApi();
});
afterAll(() => h.close());

const adminWithProject = () => keysAdmin(h);

describe('who may manage keys', () => {
  it('a team_member gets 403 on every key route; a stranger 404; another admin member may manage', async () => {
    const { admin, project, base } = await adminWithProject();
    const created = (await h.post(base, { token: admin.accessToken, body: { name: 'k' } })).body;
    const member = await h.user();
    const coAdmin = await h.user();
    await addMember(h, project.id, member);
    await addMember(h, project.id, coAdmin, 'project_admin');

    const calls = (token: string) => [
      h.post(base, { token, body: { name: 'x' } }),
      h.get(base, { token }),
      h.patch(`${base}/${created.id}`, { token, body: { enabled: false } }),
      h.delete(`${base}/${created.id}`, { token }),
    ];
    for (const res of await Promise.all(calls(member.accessToken))) expectError(res, 403, 'This action requires the project_admin role');
    const stranger = await h.user();
    for (const res of await Promise.all(calls(stranger.accessToken))) expectError(res, 404, 'Project not found');
    expect((await h.db.apiKey.findUniqueOrThrow({ where: { id: created.id } })).enabled).toBe(true);

    expect((await h.get(base, { token: coAdmin.accessToken })).status).toBe(200);
    expect((await h.patch(`${base}/${created.id}`, { token: coAdmin.accessToken, body: { name: 'renamed' } })).status).toBe(200);
  });

  it("another project's key id under one's own project path is 404 and left alone", async () => {
    const a = await adminWithProject();
    const b = await adminWithProject();
    const keyOfB = (await h.post(b.base, { token: b.admin.accessToken, body: { name: 'b' } })).body;
    expectError(await h.patch(`${a.base}/${keyOfB.id}`, { token: a.admin.accessToken, body: { enabled: false } }), 404, 'API key not found');
    expectError(await h.delete(`${a.base}/${keyOfB.id}`, { token: a.admin.accessToken }), 404, 'API key not found');
    expect((await h.db.apiKey.findUniqueOrThrow({ where: { id: keyOfB.id } })).enabled).toBe(true);
  });
});

describe('API keys as credentials', () => {
  it('act only on their own project, whatever projectId they name', async () => {
    const victim = await tenant(h);
    const attacker = await tenant(h);
    const res = await h.get(`/projects/${victim.project.id}`, { apiKey: attacker.apiKey.key });
    expectError(res, 403);
    expect(res.text).not.toContain(victim.project.name);
    expectError(await h.get(`/projects/${randomUUID()}`, { apiKey: attacker.apiKey.key }), 403);
    expect((await h.get(`/projects/${attacker.project.id}`, { apiKey: attacker.apiKey.key })).body.id).toBe(attacker.project.id);
  });

  it('are refused on the JWT-only management routes, even for their own project', async () => {
    const { project, apiKey } = await tenant(h);
    const routes: Array<[string, string, unknown?]> = [
      ['POST', '/projects', { name: 'x' }],
      ['GET', '/projects'],
      ['DELETE', `/projects/${project.id}`],
      ['GET', `/projects/${project.id}/team`],
      ['GET', `/projects/${project.id}/invites`],
      ['POST', '/projects/invite', { email: 'a@b.test', projectId: project.id }],
      ['GET', `/projects/${project.id}/api-keys`],
      ['POST', `/projects/${project.id}/api-keys`, { name: 'more' }],
      ['PATCH', `/projects/${project.id}/api-keys/${apiKey.id}`, { enabled: false }],
      ['DELETE', `/projects/${project.id}/api-keys/${apiKey.id}`],
    ];
    for (const [method, path, body] of routes) {
      const res = await h.request(method, path, { apiKey: apiKey.key, body });
      expect([method, path, res.status]).toEqual([method, path, 401]);
    }
    expect(await h.db.apiKey.count({ where: { projectId: project.id } })).toBe(1);
    expect(await h.db.project.count({ where: { id: project.id } })).toBe(1);
  });

  it('an unknown key is 401 Invalid API key; a disabled one 401 API key is disabled', async () => {
    const { project } = await tenant(h);
    const disabled = await createApiKey(h, project.id, false);
    expect((await h.get(`/projects/${project.id}`, { apiKey: 'hk_unknown' })).body).toEqual({ statusCode: 401, message: 'Invalid API key', error: 'Unauthorized' });
    expect((await h.get(`/projects/${project.id}`, { apiKey: disabled.key })).body).toEqual({ statusCode: 401, message: 'API key is disabled', error: 'Unauthorized' });
  });
});

describe('two API instances (one Postgres, one Redis)', () => {
  let b: Harness;
  beforeAll(async () => {
    b = await startApi();
  });
  afterAll(() => b.close());

  it('disabling or deleting a key on instance A is seen by instance B at the very next request', async () => {
    const { admin, project, base } = await adminWithProject();
    const created = (await h.post(base, { token: admin.accessToken, body: { name: 'shared' } })).body;
    const readOnB = () => b.get(`/projects/${project.id}`, { apiKey: created.key });

    expect((await readOnB()).status).toBe(200);
    expect((await readOnB()).status).toBe(200);

    expect((await h.patch(`${base}/${created.id}`, { token: admin.accessToken, body: { enabled: false } })).status).toBe(200);
    expect((await readOnB()).body).toEqual({ statusCode: 401, message: 'API key is disabled', error: 'Unauthorized' });

    expect((await h.patch(`${base}/${created.id}`, { token: admin.accessToken, body: { enabled: true } })).status).toBe(200);
    expect((await readOnB()).status).toBe(200);

    expect((await h.delete(`${base}/${created.id}`, { token: admin.accessToken })).status).toBe(200);
    expect((await readOnB()).body).toEqual({ statusCode: 401, message: 'Invalid API key', error: 'Unauthorized' });
  });
});
