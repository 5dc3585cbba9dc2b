import { randomUUID } from 'node:crypto';
import { expectError, startApi, type Harness } from '../../../../../test/harness';
import { addMember, tenant, type Tenant } from '../../../../../test/fixtures';

let h: Harness;
beforeAll(async () => {
  h = await startApi();
});
afterAll(() => h.close());

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const q = (t: Tenant) => ({ query: { projectId: t.project.id }, token: t.owner.accessToken });

describe('push config', () => {
  it('is created enabled by default, once per project, and read back', async () => {
    const t = await tenant(h);
    expectError(await h.get('/push-config', q(t)), 404, 'Push config not found');

    const created = await h.post('/push-config', q(t));
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.any(String), projectId: t.project.id, enabled: true, createdAt: expect.stringMatching(ISO), updatedAt: expect.stringMatching(ISO) });

    const read = await h.get('/push-config', q(t));
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);

    expectError(await h.post('/push-config', { ...q(t), body: { enabled: false } }), 409, 'Push config already exists for this project');
    expect((await h.get('/push-config', q(t))).body.enabled).toBe(true);
  });

  it('can be created disabled', async () => {
    const t = await tenant(h);
    const res = await h.post('/push-config', { ...q(t), body: { enabled: false } });
    expect(res.status).toBe(201);
    expect(res.body.enabled).toBe(false);
  });

  it('moves between enabled and disabled with PUT', async () => {
    const t = await tenant(h);
    const created = (await h.post('/push-config', { ...q(t), body: {} })).body;
    const off = await h.put('/push-config', { ...q(t), body: { enabled: false } });
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ ...created, enabled: false, updatedAt: expect.stringMatching(ISO) });
    expect(Date.parse(off.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.updatedAt));
    expect((await h.get('/push-config', q(t))).body.enabled).toBe(false);
    const on = await h.put('/push-config', { ...q(t), body: { enabled: true } });
    expect(on.status).toBe(200);
    expect(on.body.enabled).toBe(true);
  });

  it('answers PUT with 404 when the project has no push config', async () => {
    const t = await tenant(h);
    expectError(await h.put('/push-config', { ...q(t), body: { enabled: false } }), 404, 'Push config not found');
  });

  it('validates the body', async () => {
    const t = await tenant(h);
    const missing = await h.put('/push-config', { ...q(t), body: {} });
    expectError(missing, 400);
    expect(missing.body.details).toEqual([{ path: 'enabled', message: 'enabled is required' }]);
    const wrongType = await h.post('/push-config', { ...q(t), body: { enabled: 'yes' } });
    expectError(wrongType, 400);
    expect(wrongType.body.details).toEqual([{ path: 'enabled', message: 'enabled must be a boolean' }]);
    expectError(await h.get('/push-config', q(t)), 404);
  });

  it('requires a valid projectId query parameter', async () => {
    const t = await tenant(h);
    expectError(await h.get('/push-config', { token: t.owner.accessToken }), 400, 'projectId query parameter is required');
    expectError(await h.post('/push-config', { token: t.owner.accessToken, query: { projectId: 'not-a-uuid' } }), 400, /projectId must be a valid UUID/);
  });

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
  const fcm = {
    provider: 'fcm',
    name: 'Firebase Cloud Messaging',
    fields: [
      { name: 'projectId', type: 'string', required: true, secret: false, description: expect.any(String) },
      { name: 'clientEmail', type: 'string', required: true, secret: false, description: expect.any(String) },
      { name: 'privateKey', type: 'string', required: true, secret: true, description: expect.any(String) },
    ],
  };

  it('lists every provider type with its credential fields', async () => {
    const u = await h.user();
    const res = await h.get('/push-config/provider-schemas', { token: u.accessToken });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([fcm]);
  });

  it('describes one provider type', async () => {
    const u = await h.user();
    const res = await h.get('/push-config/provider-schemas/fcm', { token: u.accessToken });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(fcm);
  });

  it('answers 404 for an unknown provider type', async () => {
    const u = await h.user();
    expectError(await h.get('/push-config/provider-schemas/apns', { token: u.accessToken }), 404, 'Unknown provider type: apns');
    expectError(await h.get('/push-config/provider-schemas/FCM', { token: u.accessToken }), 404);
  });

  it('requires a JWT', async () => {
    const t = await tenant(h);
    expectError(await h.get('/push-config/provider-schemas'), 401, 'Missing or invalid authorization header');
    expectError(await h.get('/push-config/provider-schemas/fcm', { apiKey: t.apiKey.key }), 401);
  });
});
