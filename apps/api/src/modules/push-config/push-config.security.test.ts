import { randomUUID } from 'node:crypto';
import { addMember, expectError, startApi, tenant, type Harness, type Tenant } from '@herald/testing';

/** Push config and provider schemas: credentials, roles and tenancy: who may do what, and what never leaks. */

let h: Harness;
beforeAll(async () => {
  h = await startApi();
});
afterAll(() => h.close());

const q = (t: Tenant) => ({ query: { projectId: t.project.id }, token: t.owner.accessToken });

describe('push config', () => {
  it('is 404 for a project the caller is not in, or that does not exist', async () => {
    const victim = await tenant(h);
    const stranger = await tenant(h);
    await h.post('/push-config', q(victim));
    for (const projectId of [victim.project.id, randomUUID()]) {
      const opts = { token: stranger.owner.accessToken, query: { projectId } };
      expectError(await h.get('/push-config', opts), 404);
      expectError(await h.post('/push-config', opts), 404);
      expectError(await h.put('/push-config', { ...opts, body: { enabled: false } }), 404);
    }
    expect((await h.get('/push-config', q(victim))).body.enabled).toBe(true);
  });

  it('lets a team_member read but not write (403); a project_admin member may write', async () => {
    const t = await tenant(h);
    const member = await h.user();
    const admin = await h.user();
    await addMember(h, t.project.id, member, 'team_member');
    await addMember(h, t.project.id, admin, 'project_admin');
    const as = (s: { accessToken: string }) => ({ token: s.accessToken, query: { projectId: t.project.id } });

    expectError(await h.post('/push-config', as(member)), 403, 'This action requires the project_admin role');
    expect((await h.post('/push-config', as(admin))).status).toBe(201);
    expect((await h.get('/push-config', as(member))).status).toBe(200);
    expectError(await h.put('/push-config', { ...as(member), body: { enabled: false } }), 403);
    expect((await h.get('/push-config', as(member))).body.enabled).toBe(true);
  });

  it('is JWT only: no token or an API key alone gets 401', async () => {
    const t = await tenant(h);
    expectError(await h.get('/push-config', { query: { projectId: t.project.id } }), 401, 'Missing or invalid authorization header');
    expectError(await h.post('/push-config', { apiKey: t.apiKey.key, query: { projectId: t.project.id } }), 401);
    expectError(await h.get('/push-config', q(t)), 404);
  });
});

describe('provider schemas', () => {
  it('requires a JWT', async () => {
    const t = await tenant(h);
    expectError(await h.get('/push-config/provider-schemas'), 401, 'Missing or invalid authorization header');
    expectError(await h.get('/push-config/provider-schemas/fcm', { apiKey: t.apiKey.key }), 401);
  });
});
