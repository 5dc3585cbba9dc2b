import { expectError, startApi, tenant, type Harness, type Tenant } from '@herald/testing';

/**
 * Push config and provider schemas: what the endpoints do when used as intended. Refusals are in
 * push-config.errors.test.ts, credentials, roles and tenancy in push-config.security.test.ts.
 */

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
});
