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

it('refuses loopback, private and link-local addresses and single-label names, literal or named, in a create or a change', async () => {
  const { admin, base, path } = await adminWithEndpoint();
  const internal = [
    'https://127.0.0.1/in',
    'https://10.1.2.3/in',
    'https://192.168.0.10/in',
    'https://169.254.169.254/latest/meta-data',
    'https://[::1]/in',
    'https://[::ffff:127.0.0.1]/in',
    // IPv4-compatible IPv6 (::/96) reaches the IPv4 inside.
    'https://[::127.0.0.1]/in',
    'https://[fd00:ec2::254]/in',
    'https://localhost/in',
    // A trailing dot names the same host.
    'https://localhost./in',
  ];
  for (const url of internal) {
    for (const res of [await h.post(base, { token: admin.accessToken, body: endpointBody({ url }) }), await h.put(path, { token: admin.accessToken, body: { url } })]) {
      expectError(res, 400, /loopback, private/);
      expect([url, res.body.details]).toEqual([url, [{ path: 'url', message: expect.any(String) }]]);
    }
  }
  // A single-label name resolves through the network's search domains, inside it: the worker would
  // refuse it at connect time, and creation refuses it too.
  for (const url of ['https://intranet/in', 'https://metadata/in', 'https://vm./in']) {
    for (const res of [await h.post(base, { token: admin.accessToken, body: endpointBody({ url }) }), await h.put(path, { token: admin.accessToken, body: { url } })]) {
      expectError(res, 400, /fully qualified domain name/);
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

it('a project holds at most 20 endpoints, even created at once: the 21st is a 409 and nothing is written', async () => {
  const { admin, base, project } = await adminWithProject();
  const answers = await Promise.all(Array.from({ length: 24 }, () => h.post(base, { token: admin.accessToken, body: endpointBody() })));
  expect(answers.filter((r) => r.status === 201)).toHaveLength(20);
  for (const res of answers.filter((r) => r.status !== 201)) expectError(res, 409, /20 webhook endpoints already/);
  expect(await h.db.webhookEndpoint.count({ where: { projectId: project.id } })).toBe(20);
  // Deleting one makes room for one.
  const first = answers.find((r) => r.status === 201)!.body.id as string;
  expect((await h.delete(`${base}/${first}`, { token: admin.accessToken })).status).toBe(200);
  expect((await h.post(base, { token: admin.accessToken, body: endpointBody() })).status).toBe(201);
  expectError(await h.post(base, { token: admin.accessToken, body: endpointBody() }), 409);
});

it('test events are limited per project (10 a minute, over all its endpoints); past it a 429 queues nothing', async () => {
  const { admin, base, project } = await adminWithProject();
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push((await h.post(base, { token: admin.accessToken, body: endpointBody() })).body.id);
  const answers = [];
  for (let i = 0; i < 12; i++) answers.push(await h.post(`${base}/${ids[i % 3]}/test`, { token: admin.accessToken }));
  expect(answers.slice(0, 10).map((r) => r.status)).toEqual(Array(10).fill(202));
  for (const res of answers.slice(10)) {
    expectError(res, 429);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
  }
  expect(await h.db.webhookEvent.count({ where: { projectId: project.id, type: 'webhook.test' } })).toBe(10);
  // Another project's budget is its own.
  const other = await adminWithEndpoint();
  expect((await h.post(`${other.path}/test`, { token: other.admin.accessToken })).status).toBe(202);
});
