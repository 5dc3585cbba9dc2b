import { attributeSteps } from './test-helpers/attribute-steps';
import { createApiKey, expectError, startApi, tenant, type Harness, type Tenant } from '@herald/testing';

/** Device attributes: credentials and tenancy. A write reaches the caller's project's devices only. */
let h: Harness;
let victim: Tenant;
let stranger: Tenant;
beforeAll(async () => {
  h = await startApi();
  victim = await tenant(h);
  stranger = await tenant(h);
});
afterAll(() => h.close());

const { register, device, patchUser, patchUsers, stored } = attributeSteps(() => h);

const calls = [
  ['PATCH /push/users/{userId}/attributes', (auth: Parameters<typeof patchUser>[2]) => patchUser('shared-user', { tags: { owned: true } }, auth)],
  ['POST /push/users/attributes', (auth: Parameters<typeof patchUsers>[1]) => patchUsers({ users: [{ userId: 'shared-user', tags: { owned: true } }] }, auth)],
] as const;

describe.each(calls)('%s', (_route, call) => {
  it('needs credentials: none, an unknown key or a disabled key are 401', async () => {
    expectError(await call({}), 401);
    expectError(await call({ apiKey: 'hk_nope' }), 401, 'Invalid API key');
    const disabled = await createApiKey(h, victim.project.id, false);
    expectError(await call({ apiKey: disabled.key }), 401, 'API key is disabled');
  });

  it("another project's key naming the victim's project is a 403; a stranger's JWT a 404", async () => {
    expectError(await call({ apiKey: stranger.apiKey.key, projectId: victim.project.id }), 403, 'This API key belongs to another project');
    expectError(await call({ token: stranger.owner.accessToken, projectId: victim.project.id }), 404);
  });

  it("the same user id in two projects: each key reaches its own project's devices only", async () => {
    const victimDevice = device({ userId: 'shared-user', tags: { plan: 'pro' } });
    const strangerDevice = device({ userId: 'shared-user' });
    await register(victimDevice, { apiKey: victim.apiKey.key });
    await register(strangerDevice, { apiKey: stranger.apiKey.key });
    const res = await call({ apiKey: stranger.apiKey.key });
    expect(res.status).toBe(200);
    expect(res.text).not.toContain(victimDevice.deviceToken);
    expect((await stored(victimDevice.deviceToken)).tags).toEqual({ plan: 'pro' });
    expect((await stored(strangerDevice.deviceToken)).tags).toEqual({ owned: true });
  });
});
