import { deviceSteps } from './test-helpers/device-steps';
import { createApiKey, expectError, startApi, tenant, unique, type Harness, type Tenant } from '@herald/testing';

/** Devices: what the endpoints refuse, and with which status and message. */

let h: Harness;

let t: Tenant;
beforeAll(async () => {
  h = await startApi();
  t = await tenant(h);
});
afterAll(() => h.close());

const { register, device } = deviceSteps(() => h);

describe('register-device', () => {
  it('with a JWT, projectId is required', async () => {
    expectError(await register(device(), { token: t.owner.accessToken }), 400, /projectId/);
  });

  it('validates every field', async () => {
    const res = await register({ userId: '', deviceToken: 'has space', provider: 'apns', platform: 'windows' }, { apiKey: t.apiKey.key });
    expectError(res, 400);
    expect(res.body.details.map((d: { path: string }) => d.path).sort()).toEqual(['deviceToken', 'platform', 'provider', 'userId']);
    expectError(await register(device({ deviceToken: 'x'.repeat(4097) }), { apiKey: t.apiKey.key }), 400);
    expectError(await register(device(), { token: t.owner.accessToken, projectId: 'not-a-uuid' }), 400);
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
