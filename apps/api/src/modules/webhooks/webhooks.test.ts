import { openSecret, webhookJobId, webhookSealContext } from '@herald/core';
import { addMember, createProject, expectError, startApi, type Harness } from '@herald/testing';

let h: Harness;
beforeAll(async () => {
  h = await startApi({ WEBHOOK_HTTP_HOSTS: 'hooks.internal.test' });
});
afterAll(() => h.close());

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const body = (extra: Record<string, unknown> = {}) => ({ url: 'https://hooks.example.com/herald', events: ['notification.completed', 'device.token_removed'], ...extra });

async function adminWithProject() {
  const admin = await h.user();
  const project = await createProject(h, admin);
  return { admin, project, base: `/projects/${project.id}/webhooks` };
}

describe('webhook endpoints', () => {
  it('creates an endpoint whose secret is shown once and stored encrypted', async () => {
    const { admin, base } = await adminWithProject();
    const res = await h.post(base, { token: admin.accessToken, body: body({ description: ' Orders service ', events: ['device.token_removed', 'device.token_removed'] }) });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      url: 'https://hooks.example.com/herald',
      description: 'Orders service',
      events: ['device.token_removed'],
      enabled: true,
      failingSince: null,
      disabledAt: null,
      previousSecretExpiresAt: null,
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
      secret: expect.stringMatching(SECRET),
    });
    const { secret, ...endpoint } = res.body;

    const row = await h.db.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
    expect(row.secret).not.toContain(secret.slice(6));
    expect(openSecret(row.secret, row.keyId, h.config.encryption, webhookSealContext(row.id))).toBe(secret);
    // Bound to its row: the envelope does not open as another endpoint's.
    expect(() => openSecret(row.secret, row.keyId, h.config.encryption, webhookSealContext(h.config.encryption.currentKeyId))).toThrow();

    const list = await h.get(base, { token: admin.accessToken });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([endpoint]);
    const one = await h.get(`${base}/${endpoint.id}`, { token: admin.accessToken });
    expect(one.body).toEqual(endpoint);
    for (const text of [list.text, one.text]) expect(text).not.toContain(secret);
    expect(h.logLines.join('')).not.toContain(secret);
  });

  it('requires https, except for hosts allowed by configuration; refuses internal addresses and bad events', async () => {
    const { admin, base } = await adminWithProject();
    const create = (b: unknown) => h.post(base, { token: admin.accessToken, body: b });
    expect((await create(body({ url: 'http://hooks.internal.test:8080/in' }))).status).toBe(201);
    expect((await create(body({ url: 'https://hooks.example.com:8443/in?token=abc' }))).status).toBe(201);

    const refusals: Array<[string, RegExp]> = [
      ['http://hooks.example.com/in', /url must use https/],
      ['ftp://hooks.example.com/in', /url must use https/],
      ['hooks.example.com/in', /absolute URL/],
      ['https://user:pass@hooks.example.com/in', /credentials/],
      ['https://127.0.0.1/in', /loopback, private/],
      ['https://10.1.2.3/in', /loopback, private/],
      ['https://192.168.0.10/in', /loopback, private/],
      ['https://169.254.169.254/latest/meta-data', /loopback, private/],
      ['https://[::1]/in', /loopback, private/],
      ['https://[::ffff:127.0.0.1]/in', /loopback, private/],
      ['https://[fd00:ec2::254]/in', /loopback, private/],
      ['https://localhost/in', /loopback, private/],
    ];
    for (const [url, message] of refusals) {
      const res = await create(body({ url }));
      expectError(res, 400, message);
      expect([url, res.body.details]).toEqual([url, [{ path: 'url', message: expect.any(String) }]]);
    }
    for (const events of [[], ['notification.sent'], 'notification.completed', undefined]) {
      const res = await create(body({ events }));
      expectError(res, 400);
      expect(res.body.details[0].path).toMatch(/^events/);
    }
    expectError(await create({ events: ['notification.failed'] }), 400);
    expect((await h.get(base, { token: admin.accessToken })).body).toHaveLength(2);
  });

  it('PUT changes some fields; enabling again clears the failure record; DELETE removes it and its deliveries', async () => {
    const { admin, project, base } = await adminWithProject();
    const created = (await h.post(base, { token: admin.accessToken, body: body() })).body;
    const path = `${base}/${created.id}`;

    const changed = await h.put(path, { token: admin.accessToken, body: { events: ['notification.failed'], description: 'ops' } });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ url: created.url, events: ['notification.failed'], description: 'ops', enabled: true });
    expect(changed.text).not.toContain(created.secret);

    await h.db.webhookEndpoint.update({ where: { id: created.id }, data: { enabled: false, failingSince: new Date(Date.now() - 86_400_000), disabledAt: new Date() } });
    const disabled = (await h.get(path, { token: admin.accessToken })).body;
    expect(disabled).toMatchObject({ enabled: false, failingSince: expect.stringMatching(ISO), disabledAt: expect.stringMatching(ISO) });
    const enabled = await h.put(path, { token: admin.accessToken, body: { enabled: true } });
    expect(enabled.body).toMatchObject({ enabled: true, failingSince: null, disabledAt: null });

    expectError(await h.put(path, { token: admin.accessToken, body: {} }), 400, /Provide url, events, enabled or description/);
    expectError(await h.put(path, { token: admin.accessToken, body: { url: 'http://hooks.example.com/x' } }), 400, /https/);
    expectError(await h.put(path, { token: admin.accessToken, body: { enabled: 'yes' } }), 400);

    const test = await h.post(`${path}/test`, { token: admin.accessToken });
    expect(test.status).toBe(202);
    const deleted = await h.delete(path, { token: admin.accessToken });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ message: 'Webhook deleted' });
    expect(await h.db.webhookDelivery.count({ where: { id: test.body.deliveryId } })).toBe(0);
    for (const res of [await h.get(path, { token: admin.accessToken }), await h.delete(path, { token: admin.accessToken }), await h.post(`${path}/test`, { token: admin.accessToken })]) {
      expectError(res, 404, 'Webhook not found');
    }
    expect(await h.db.webhookEndpoint.count({ where: { projectId: project.id } })).toBe(0);
  });

  it('rotating the secret shows the new one once; the previous one stays for 24 hours', async () => {
    const { admin, base } = await adminWithProject();
    const created = (await h.post(base, { token: admin.accessToken, body: body() })).body;
    const before = Date.now();
    const rotated = await h.post(`${base}/${created.id}/rotate-secret`, { token: admin.accessToken });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(SECRET);
    expect(rotated.body.secret).not.toBe(created.secret);
    const expires = Date.parse(rotated.body.previousSecretExpiresAt);
    expect(expires).toBeGreaterThanOrEqual(before + 24 * 3600_000);
    expect(expires).toBeLessThan(Date.now() + 24 * 3600_000 + 1000);

    const row = await h.db.webhookEndpoint.findUniqueOrThrow({ where: { id: created.id } });
    const context = webhookSealContext(row.id);
    expect(openSecret(row.secret, row.keyId, h.config.encryption, context)).toBe(rotated.body.secret);
    expect(openSecret(row.previousSecret!, row.previousKeyId!, h.config.encryption, context)).toBe(created.secret);
    const read = await h.get(`${base}/${created.id}`, { token: admin.accessToken });
    expect(read.body.previousSecretExpiresAt).toBe(rotated.body.previousSecretExpiresAt);
    expect(read.text).not.toContain(rotated.body.secret);
    expect(h.logLines.join('')).not.toContain(rotated.body.secret);
  });

  it('the test event is queued for the worker, never sent from the request; deliveries list it', async () => {
    const { admin, base } = await adminWithProject();
    const created = (await h.post(base, { token: admin.accessToken, body: body({ events: ['notification.failed'] }) })).body;
    const res = await h.post(`${base}/${created.id}/test`, { token: admin.accessToken });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ eventId: expect.any(String), deliveryId: expect.any(String) });

    const job = await h.container.webhookQueue.getJob(webhookJobId(res.body.deliveryId, 1));
    expect(job?.data).toEqual({ deliveryId: res.body.deliveryId, attempt: 1 });
    const event = await h.db.webhookEvent.findUniqueOrThrow({ where: { id: res.body.eventId } });
    expect(JSON.parse(event.body)).toEqual({
      version: 1,
      type: 'webhook.test',
      id: res.body.eventId,
      createdAt: expect.stringMatching(ISO),
      data: { webhookId: created.id, message: expect.any(String) },
    });

    const deliveries = await h.get(`${base}/${created.id}/deliveries`, { token: admin.accessToken });
    expect(deliveries.status).toBe(200);
    expect(deliveries.body).toEqual({
      data: [
        {
          id: res.body.deliveryId,
          eventId: res.body.eventId,
          eventType: 'webhook.test',
          status: 'pending',
          responseStatus: null,
          durationMs: null,
          error: null,
          nextRetryAt: expect.stringMatching(ISO),
          lastAttemptAt: null,
          createdAt: expect.stringMatching(ISO),
          attempts: [],
        },
      ],
      meta: { page: 1, limit: 50, total: 1, totalPages: 1 },
    });
    expect((await h.get(`${base}/${created.id}/deliveries`, { token: admin.accessToken, query: { status: 'succeeded' } })).body.data).toEqual([]);
    expectError(await h.get(`${base}/${created.id}/deliveries`, { token: admin.accessToken, query: { status: 'done' } }), 400);
    expectError(await h.get(`${base}/${created.id}/deliveries`, { token: admin.accessToken, query: { limit: 101 } }), 400);

    await h.put(`${base}/${created.id}`, { token: admin.accessToken, body: { enabled: false } });
    expectError(await h.post(`${base}/${created.id}/test`, { token: admin.accessToken }), 409, /disabled/);
  });
});

describe('who may manage webhooks', () => {
  it('a team_member gets 403 on every route; a stranger 404; another project admin 404 for this project’s ids', async () => {
    const { admin, project, base } = await adminWithProject();
    const created = (await h.post(base, { token: admin.accessToken, body: body() })).body;
    const member = await h.user();
    await addMember(h, project.id, member);
    const path = `${base}/${created.id}`;
    const calls = (token: string, b = base, p = path) => [
      h.post(b, { token, body: body() }),
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
});
