import { expectError, startApi, unique, type Harness } from '../../../../../test/harness';
import { addMember, createApiKey, tenant, type Tenant } from '../../../../../test/fixtures';

let h: Harness;
let t: Tenant;
beforeAll(async () => {
  h = await startApi();
  t = await tenant(h);
});
afterAll(() => h.close());

const register = (body: Record<string, unknown>, auth: { apiKey?: string; token?: string; projectId?: string }) =>
  h.post('/push/register-device', { apiKey: auth.apiKey, token: auth.token, query: auth.projectId ? { projectId: auth.projectId } : undefined, body });

const device = (overrides: Record<string, unknown> = {}) => ({ userId: unique('cust'), deviceToken: unique('tok'), provider: 'fcm', platform: 'android', ...overrides });

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

  it('with a JWT, projectId is required', async () => {
    expectError(await register(device(), { token: t.owner.accessToken }), 400, /projectId/);
  });

  it("with a key, another project's id in the query is refused with 403", async () => {
    const other = await tenant(h);
    expectError(await register(device(), { apiKey: t.apiKey.key, projectId: other.project.id }), 403);
    const same = await register(device(), { apiKey: t.apiKey.key, projectId: t.project.id });
    expect(same.status).toBe(201);
  });

  it('validates every field', async () => {
    const res = await register({ userId: '', deviceToken: 'has space', provider: 'apns', platform: 'windows' }, { apiKey: t.apiKey.key });
    expectError(res, 400);
    expect(res.body.details.map((d: { path: string }) => d.path).sort()).toEqual(['deviceToken', 'platform', 'provider', 'userId']);
    expectError(await register(device({ deviceToken: 'x'.repeat(4097) }), { apiKey: t.apiKey.key }), 400);
    expectError(await register(device(), { token: t.owner.accessToken, projectId: 'not-a-uuid' }), 400);
  });

  it('refuses unknown and disabled keys with their documented messages', async () => {
    expect((await register(device(), { apiKey: 'hk_nope' })).body).toEqual({ statusCode: 401, message: 'Invalid API key', error: 'Unauthorized' });
    const disabled = await createApiKey(h, t.project.id, false);
    expect((await register(device(), { apiKey: disabled.key })).body).toEqual({ statusCode: 401, message: 'API key is disabled', error: 'Unauthorized' });
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

  it('needs a JWT (API keys are for registering and sending)', async () => {
    expectError(await h.get('/push/devices/x', { apiKey: t.apiKey.key, query: { projectId: t.project.id } }), 401);
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

describe('rate limit', () => {
  it('register-device allows 60 per minute per credential, then 429 with Retry-After and RateLimit headers', async () => {
    const limited = await startApi({ RATE_LIMIT_REGISTER_DEVICE: '60', QUEUE_PREFIX: `${h.config.queuePrefix}-rl-${unique()}` });
    try {
      const key = (await createApiKey(limited, t.project.id)).key;
      const body = device();
      const statuses: number[] = [];
      for (let i = 0; i < 60; i++) statuses.push((await limited.post('/push/register-device', { apiKey: key, body })).status);
      expect(statuses.every((s) => s === 200 || s === 201)).toBe(true);
      const over = await limited.post('/push/register-device', { apiKey: key, body });
      expectError(over, 429);
      expect(over.body.error).toBe('Too Many Requests');
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(over.headers.get('ratelimit-policy')).toMatch(/q=60/);
      expect(over.headers.get('ratelimit')).toMatch(/r=0/);
      // another credential has its own budget
      const otherKey = (await createApiKey(limited, t.project.id)).key;
      expect((await limited.post('/push/register-device', { apiKey: otherKey, body })).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
