import { deviceSteps } from './test-helpers/device-steps';
import { addMember, startApi, tenant, unique, type Harness, type Tenant } from '@herald/testing';

/**
 * Devices: what the endpoints do when used as intended. Refusals are in
 * devices.errors.test.ts, credentials, roles and tenancy in devices.security.test.ts.
 */

let h: Harness;

let t: Tenant;
beforeAll(async () => {
  h = await startApi();
  t = await tenant(h);
});
afterAll(() => h.close());

const { register, device } = deviceSteps(() => h);

describe('register-device', () => {
  it('creates with 201, then answers 200 for the same token (idempotent)', async () => {
    const body = device();
    const first = await register(body, { apiKey: t.apiKey.key });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      id: expect.any(String),
      userId: body.userId,
      deviceToken: body.deviceToken,
      provider: 'fcm',
      platform: 'android',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      lastSeenAt: expect.any(String),
      tags: {},
      timezone: null,
      locale: null,
      appVersion: null,
    });
    const again = await register(body, { apiKey: t.apiKey.key });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect(new Date(again.body.lastSeenAt).getTime()).toBeGreaterThanOrEqual(new Date(first.body.lastSeenAt).getTime());
    expect(await h.db.device.count({ where: { projectId: t.project.id, deviceToken: body.deviceToken } })).toBe(1);
  });

  it('moves a token to the new user and platform', async () => {
    const body = device();
    const first = await register(body, { apiKey: t.apiKey.key });
    const moved = await register({ ...body, userId: 'someone-else', platform: 'ios' }, { apiKey: t.apiKey.key });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ id: first.body.id, userId: 'someone-else', platform: 'ios' });
    const list = await h.get(`/push/devices/${body.userId}`, { token: t.owner.accessToken, query: { projectId: t.project.id } });
    expect(list.body).toEqual([]);
  });

  it('20 concurrent registrations of one token leave one device', async () => {
    const body = device();
    const results = await Promise.all(Array.from({ length: 20 }, () => register(body, { apiKey: t.apiKey.key })));
    expect(results.every((r) => r.status === 200 || r.status === 201)).toBe(true);
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    expect(await h.db.device.count({ where: { deviceToken: body.deviceToken } })).toBe(1);
  });

  it('works with a JWT and the projectId query; a team member may register', async () => {
    const member = await h.user();
    await addMember(h, t.project.id, member);
    const res = await register(device(), { token: member.accessToken, projectId: t.project.id });
    expect(res.status).toBe(201);
  });

  it('the same token in two projects is two devices', async () => {
    const other = await tenant(h);
    const body = device();
    expect((await register(body, { apiKey: t.apiKey.key })).status).toBe(201);
    expect((await register(body, { apiKey: other.apiKey.key })).status).toBe(201);
  });
});

describe('devices of a user', () => {
  it('lists them in registration order', async () => {
    const userId = unique('cust');
    await register(device({ userId, platform: 'android' }), { apiKey: t.apiKey.key });
    await register(device({ userId, platform: 'web' }), { apiKey: t.apiKey.key });
    const res = await h.get(`/push/devices/${encodeURIComponent(userId)}`, { token: t.owner.accessToken, query: { projectId: t.project.id } });
    expect(res.status).toBe(200);
    expect(res.body.map((d: { platform: string }) => d.platform)).toEqual(['android', 'web']);
  });
});

describe('unregister-device', () => {
  it('removes the token', async () => {
    const body = device();
    await register(body, { apiKey: t.apiKey.key });
    const res = await h.post('/push/unregister-device', { apiKey: t.apiKey.key, body: { deviceToken: body.deviceToken } });
    expect(res.status).toBe(200);
    expect(await h.db.device.count({ where: { deviceToken: body.deviceToken } })).toBe(0);
    expect((await h.post('/push/unregister-device', { apiKey: t.apiKey.key, body: { deviceToken: body.deviceToken } })).status).toBe(200);
  });
});
