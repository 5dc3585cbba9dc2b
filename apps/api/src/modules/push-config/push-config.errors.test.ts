import { expectError, startApi, tenant, type Harness, type Tenant } from '@herald/testing';

/** Push config and provider schemas: what the endpoints refuse, and with which status and message. */

let h: Harness;
beforeAll(async () => {
  h = await startApi();
});
afterAll(() => h.close());

const q = (t: Tenant) => ({ query: { projectId: t.project.id }, token: t.owner.accessToken });

describe('push config', () => {
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
});

describe('provider schemas', () => {
  it('answers 404 for an unknown provider type', async () => {
    const u = await h.user();
    expectError(await h.get('/push-config/provider-schemas/apns', { token: u.accessToken }), 404, 'Unknown provider type: apns');
    expectError(await h.get('/push-config/provider-schemas/FCM', { token: u.accessToken }), 404);
  });
});
