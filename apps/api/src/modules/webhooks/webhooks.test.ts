import { webhookJobId } from '@herald/core';
import type { Harness } from '@herald/testing';
import { endpointBody, ISO, SECRET, startWebhooksApi, webhookSteps } from './test-helpers/webhook-steps';

/** Webhook endpoints used as intended: create, read, change, rotate, test, delete. */

let h: Harness;
beforeAll(async () => {
  h = await startWebhooksApi();
});
afterAll(() => h.close());

const { adminWithProject, adminWithEndpoint } = webhookSteps(() => h);

it('creates an endpoint whose secret is shown once; the list and the endpoint read without it', async () => {
  const { admin, base } = await adminWithProject();
  const res = await h.post(base, { token: admin.accessToken, body: endpointBody({ description: ' Orders service ', events: ['device.token_removed', 'device.token_removed'] }) });
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
  const { secret: _secret, ...endpoint } = res.body;

  const list = await h.get(base, { token: admin.accessToken });
  expect(list.status).toBe(200);
  expect(list.body).toEqual([endpoint]);
  const one = await h.get(`${base}/${endpoint.id}`, { token: admin.accessToken });
  expect(one.status).toBe(200);
  expect(one.body).toEqual(endpoint);
});

it('takes plain http for a host WEBHOOK_HTTP_HOSTS allows, and keeps a port and a query', async () => {
  const { admin, base } = await adminWithProject();
  for (const url of ['http://hooks.internal.test:8080/in', 'https://hooks.example.com:8443/in?token=abc']) {
    const res = await h.post(base, { token: admin.accessToken, body: endpointBody({ url }) });
    expect(res.status).toBe(201);
    expect(res.body.url).toBe(url);
  }
  expect((await h.get(base, { token: admin.accessToken })).body).toHaveLength(2);
});

it('PUT changes some fields; enabling again clears the failure record; DELETE removes it and its deliveries', async () => {
  const { admin, project, created, path } = await adminWithEndpoint();

  const changed = await h.put(path, { token: admin.accessToken, body: { events: ['notification.failed'], description: 'ops' } });
  expect(changed.status).toBe(200);
  expect(changed.body).toMatchObject({ url: created.url, events: ['notification.failed'], description: 'ops', enabled: true });

  await h.db.webhookEndpoint.update({ where: { id: created.id }, data: { enabled: false, failingSince: new Date(Date.now() - 86_400_000), disabledAt: new Date() } });
  const disabled = (await h.get(path, { token: admin.accessToken })).body;
  expect(disabled).toMatchObject({ enabled: false, failingSince: expect.stringMatching(ISO), disabledAt: expect.stringMatching(ISO) });
  const enabled = await h.put(path, { token: admin.accessToken, body: { enabled: true } });
  expect(enabled.body).toMatchObject({ enabled: true, failingSince: null, disabledAt: null });

  const test = await h.post(`${path}/test`, { token: admin.accessToken });
  expect(test.status).toBe(202);
  const deleted = await h.delete(path, { token: admin.accessToken });
  expect(deleted.status).toBe(200);
  expect(deleted.body).toEqual({ message: 'Webhook deleted' });
  expect(await h.db.webhookDelivery.count({ where: { id: test.body.deliveryId } })).toBe(0);
  expect(await h.db.webhookEndpoint.count({ where: { projectId: project.id } })).toBe(0);
});

it('rotating the secret shows the new one once; the previous one stays for 24 hours', async () => {
  const { admin, base, created } = await adminWithEndpoint();
  const before = Date.now();
  const rotated = await h.post(`${base}/${created.id}/rotate-secret`, { token: admin.accessToken });
  expect(rotated.status).toBe(200);
  expect(rotated.body.secret).toMatch(SECRET);
  expect(rotated.body.secret).not.toBe(created.secret);
  const expires = Date.parse(rotated.body.previousSecretExpiresAt);
  expect(expires).toBeGreaterThanOrEqual(before + 24 * 3600_000);
  expect(expires).toBeLessThan(Date.now() + 24 * 3600_000 + 1000);
  const read = await h.get(`${base}/${created.id}`, { token: admin.accessToken });
  expect(read.body.previousSecretExpiresAt).toBe(rotated.body.previousSecretExpiresAt);
});

it('the test event is queued for the worker, never sent from the request; deliveries list it', async () => {
  const { admin, created, path } = await adminWithEndpoint({ events: ['notification.failed'] });
  const res = await h.post(`${path}/test`, { token: admin.accessToken });
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

  const deliveries = await h.get(`${path}/deliveries`, { token: admin.accessToken });
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
  expect((await h.get(`${path}/deliveries`, { token: admin.accessToken, query: { status: 'pending' } })).body.data).toHaveLength(1);
  expect((await h.get(`${path}/deliveries`, { token: admin.accessToken, query: { status: 'succeeded' } })).body.data).toEqual([]);
});
