import { expectError, type Harness } from '@herald/testing';
import { endpointBody, startWebhooksApi, webhookSteps } from './test-helpers/webhook-steps';

/** Webhook endpoints: what is refused, with which status and message. */

let h: Harness;
beforeAll(async () => {
  h = await startWebhooksApi();
});
afterAll(() => h.close());

const { adminWithProject, adminWithEndpoint } = webhookSteps(() => h);

it('a url must be an absolute https URL without credentials; events must be known and at least one', async () => {
  const { admin, base } = await adminWithProject();
  const create = (b: unknown) => h.post(base, { token: admin.accessToken, body: b });
  const refusals: Array<[string, RegExp]> = [
    ['http://hooks.example.com/in', /url must use https/],
    ['ftp://hooks.example.com/in', /url must use https/],
    ['hooks.example.com/in', /absolute URL/],
    ['https://user:pass@hooks.example.com/in', /credentials/],
  ];
  for (const [url, message] of refusals) {
    const res = await create(endpointBody({ url }));
    expectError(res, 400, message);
    expect([url, res.body.details]).toEqual([url, [{ path: 'url', message: expect.any(String) }]]);
  }
  for (const events of [[], ['notification.sent'], 'notification.completed', undefined]) {
    const res = await create(endpointBody({ events }));
    expectError(res, 400);
    expect(res.body.details[0].path).toMatch(/^events/);
  }
  expectError(await create({ events: ['notification.failed'] }), 400);
  expect((await h.get(base, { token: admin.accessToken })).body).toEqual([]);
});

it('PUT needs a field to change, and checks the ones it gets', async () => {
  const { admin, path } = await adminWithEndpoint();
  expectError(await h.put(path, { token: admin.accessToken, body: {} }), 400, /Provide url, events, enabled or description/);
  expectError(await h.put(path, { token: admin.accessToken, body: { url: 'http://hooks.example.com/x' } }), 400, /https/);
  expectError(await h.put(path, { token: admin.accessToken, body: { enabled: 'yes' } }), 400);
  expect((await h.get(path, { token: admin.accessToken })).body).toMatchObject({ url: 'https://hooks.example.com/herald', enabled: true });
});

it('a deleted endpoint is 404 on every route', async () => {
  const { admin, path } = await adminWithEndpoint();
  expect((await h.delete(path, { token: admin.accessToken })).status).toBe(200);
  for (const res of [
    await h.get(path, { token: admin.accessToken }),
    await h.put(path, { token: admin.accessToken, body: { enabled: false } }),
    await h.delete(path, { token: admin.accessToken }),
    await h.post(`${path}/rotate-secret`, { token: admin.accessToken }),
    await h.post(`${path}/test`, { token: admin.accessToken }),
    await h.get(`${path}/deliveries`, { token: admin.accessToken }),
  ]) {
    expectError(res, 404, 'Webhook not found');
  }
});

it('deliveries take a known status and a page of at most 100; a disabled endpoint gets no test event', async () => {
  const { admin, path } = await adminWithEndpoint();
  expectError(await h.get(`${path}/deliveries`, { token: admin.accessToken, query: { status: 'done' } }), 400);
  expectError(await h.get(`${path}/deliveries`, { token: admin.accessToken, query: { limit: 101 } }), 400);
  expectError(await h.get(`${path}/deliveries`, { token: admin.accessToken, query: { page: 0 } }), 400);

  await h.put(path, { token: admin.accessToken, body: { enabled: false } });
  expectError(await h.post(`${path}/test`, { token: admin.accessToken }), 409, /disabled/);
});
