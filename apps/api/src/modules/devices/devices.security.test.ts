import { deviceSteps } from './test-helpers/device-steps';
import { createApiKey, expectError, startApi, tenant, type Harness, type Tenant } from '@herald/testing';

/** Devices: credentials, roles and tenancy: who may do what, and what never leaks. */

let h: Harness;

let t: Tenant;
beforeAll(async () => {
  h = await startApi();
  t = await tenant(h);
});
afterAll(() => h.close());

const { register, device } = deviceSteps(() => h);

describe('register-device', () => {
  it("with a key, another project's id in the query is refused with 403", async () => {
    const other = await tenant(h);
    expectError(await register(device(), { apiKey: t.apiKey.key, projectId: other.project.id }), 403);
    const same = await register(device(), { apiKey: t.apiKey.key, projectId: t.project.id });
    expect(same.status).toBe(201);
  });

  it('refuses unknown and disabled keys with their documented messages', async () => {
    expect((await register(device(), { apiKey: 'hk_nope' })).body).toEqual({ statusCode: 401, message: 'Invalid API key', error: 'Unauthorized' });
    const disabled = await createApiKey(h, t.project.id, false);
    expect((await register(device(), { apiKey: disabled.key })).body).toEqual({ statusCode: 401, message: 'API key is disabled', error: 'Unauthorized' });
  });
});

describe('devices of a user', () => {
  it('needs a JWT (API keys are for registering and sending)', async () => {
    expectError(await h.get('/push/devices/x', { apiKey: t.apiKey.key, query: { projectId: t.project.id } }), 401);
  });
});
