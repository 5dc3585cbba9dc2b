import { openSecret, webhookSealContext } from '@herald/core';
import { addMember, expectError, type Harness } from '@herald/testing';
import { endpointBody, startWebhooksApi, webhookSteps } from './test-helpers/webhook-steps';

/** Webhook endpoints: roles and tenancy, secrets that never leak, addresses that never point inside. */

let h: Harness;
beforeAll(async () => {
  h = await startWebhooksApi();
});
afterAll(() => h.close());

const { adminWithProject, adminWithEndpoint } = webhookSteps(() => h);

it('the signing secret is stored encrypted, bound to its endpoint, and never read back or logged', async () => {
  const { admin, base, created, path } = await adminWithEndpoint();
  const { secret } = created;
  const row = await h.db.webhookEndpoint.findUniqueOrThrow({ where: { id: created.id } });
  expect(row.secret).not.toContain(secret.slice(6));
  expect(openSecret(row.secret, row.keyId, h.config.encryption, webhookSealContext(row.id))).toBe(secret);
  // Bound to its row: the envelope does not open as another endpoint's.
  expect(() => openSecret(row.secret, row.keyId, h.config.encryption, webhookSealContext(h.config.encryption.currentKeyId))).toThrow();

  const changed = await h.put(path, { token: admin.accessToken, body: { description: 'ops' } });
  for (const res of [await h.get(base, { token: admin.accessToken }), await h.get(path, { token: admin.accessToken }), changed]) {
    expect(res.status).toBe(200);
    expect(res.text).not.toContain(secret);
  }
  expect(h.logLines.join('')).not.toContain(secret);
});

it('a rotated secret and the previous one are both stored encrypted; neither is read back or logged', async () => {
  const { admin, created, path } = await adminWithEndpoint();
  const rotated = await h.post(`${path}/rotate-secret`, { token: admin.accessToken });
  expect(rotated.status).toBe(200);
  const row = await h.db.webhookEndpoint.findUniqueOrThrow({ where: { id: created.id } });
  const context = webhookSealContext(row.id);
  expect(openSecret(row.secret, row.keyId, h.config.encryption, context)).toBe(rotated.body.secret);
  expect(openSecret(row.previousSecret!, row.previousKeyId!, h.config.encryption, context)).toBe(created.secret);
  const read = await h.get(path, { token: admin.accessToken });
  for (const secret of [rotated.body.secret, created.secret]) {
    expect(read.text).not.toContain(secret);
    expect(h.logLines.join('')).not.toContain(secret);
  }
});

it('refuses loopback, private and link-local addresses, literal or named, in a create or a change', async () => {
  const { admin, base, path } = await adminWithEndpoint();
  const internal = [
    'https://127.0.0.1/in',
    'https://10.1.2.3/in',
    'https://192.168.0.10/in',
    'https://169.254.169.254/latest/meta-data',
    'https://[::1]/in',
    'https://[::ffff:127.0.0.1]/in',
    'https://[fd00:ec2::254]/in',
    'https://localhost/in',
  ];
  for (const url of internal) {
    for (const res of [await h.post(base, { token: admin.accessToken, body: endpointBody({ url }) }), await h.put(path, { token: admin.accessToken, body: { url } })]) {
      expectError(res, 400, /loopback, private/);
      expect([url, res.body.details]).toEqual([url, [{ path: 'url', message: expect.any(String) }]]);
    }
  }
  expect((await h.get(base, { token: admin.accessToken })).body).toEqual([expect.objectContaining({ url: 'https://hooks.example.com/herald' })]);
});

it('a team_member gets 403 on every route; a stranger 404; another project admin 404 for this project’s ids', async () => {
  const { project, base, created, path } = await adminWithEndpoint();
  const member = await h.user();
  await addMember(h, project.id, member);
  const calls = (token: string, b = base, p = path) => [
    h.post(b, { token, body: endpointBody() }),
    h.get(b, { token }),
    h.get(p, { token }),
    h.put(p, { token, body: { enabled: false } }),
    h.delete(p, { token }),
    h.post(`${p}/rotate-secret`, { token }),
    h.post(`${p}/test`, { token }),
    h.get(`${p}/deliveries`, { token }),
  ];
  for (const res of await Promise.all(calls(member.accessToken))) expectError(res, 403, 'This action requires the project_admin role');
  const stranger = await h.user();
  for (const res of await Promise.all(calls(stranger.accessToken))) expectError(res, 404, 'Project not found');

  // Another project's admin, naming this project's webhook under their own project.
  const other = await adminWithProject();
  const [, , ...byId] = await Promise.all(calls(other.admin.accessToken, other.base, `${other.base}/${created.id}`));
  for (const res of byId) expectError(res, 404, 'Webhook not found');

  const row = await h.db.webhookEndpoint.findUniqueOrThrow({ where: { id: created.id } });
  expect(row).toMatchObject({ enabled: true, previousSecret: null });
  expect(await h.db.webhookDelivery.count({ where: { endpointId: created.id } })).toBe(0);
});
