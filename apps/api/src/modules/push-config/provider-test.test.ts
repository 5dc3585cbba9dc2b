import { startFcmEmulator, type FcmEmulator } from '@herald/fcm-emulator';
import { addMember, expectError, serviceAccount, startApi, tenant, type Harness, type ServiceAccount, type Tenant } from '@herald/testing';

/** POST /push-config/providers/{id}/test obtains an access token through the FCM client, over a socket to the emulator. */
let emulator: FcmEmulator;
let h: Harness;
let t: Tenant;
beforeAll(async () => {
  emulator = await startFcmEmulator({ port: 0 });
  h = await startApi({ FCM_EMULATOR_HOST: emulator.host });
  t = await tenant(h);
});
afterAll(async () => {
  await h.close();
  await emulator.close();
});

async function addProvider(account: ServiceAccount, privateKey = account.privateKey) {
  const res = await h.post('/push-config/providers', {
    token: t.owner.accessToken,
    query: { projectId: t.project.id },
    body: { provider: 'fcm', name: 'main', priority: 1, config: { projectId: account.projectId, clientEmail: account.clientEmail, privateKey } },
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

const test = (id: string, token = t.owner.accessToken) => h.post(`/push-config/providers/${id}/test`, { token });

it('answers ok for credentials the provider accepts, without sending anything', async () => {
  const account = serviceAccount();
  emulator.addServiceAccount(account);
  const id = await addProvider(account);
  const before = emulator.stats();
  const res = await test(id);
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ ok: true });
  expect(emulator.stats().tokenRequests).toBe(before.tokenRequests + 1);
  expect(emulator.stats().sendRequests).toBe(before.sendRequests);
});

it('answers ok: false with the reason for a key the provider does not know, or revoked credentials', async () => {
  const account = serviceAccount();
  emulator.addServiceAccount(account);
  const wrongKey = await addProvider(account, serviceAccount().privateKey);
  const res = await test(wrongKey);
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ ok: false, error: expect.stringMatching(/invalid_grant|signature/i) });
  expect(res.text).not.toContain('PRIVATE KEY');

  const revoked = serviceAccount();
  emulator.addServiceAccount(revoked);
  emulator.setFault({ kind: 'revoked', project: revoked.projectId });
  expect((await test(await addProvider(revoked))).body).toMatchObject({ ok: false });
});

it('is for project admins of the provider', async () => {
  const account = serviceAccount();
  const id = await addProvider(account);
  const member = await h.user();
  await addMember(h, t.project.id, member, 'team_member');
  expectError(await test(id, member.accessToken), 403);
  const stranger = await h.user();
  expectError(await test(id, stranger.accessToken), 404, 'Provider config not found');
  expectError(await test('00000000-0000-4000-8000-000000000000'), 404);
  expectError(await h.post(`/push-config/providers/${id}/test`, { apiKey: t.apiKey.key }), 401);
});
