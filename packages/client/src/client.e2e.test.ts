import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startPipeline, unique, type Pipeline } from '@herald/testing';
import { createHeraldClient, HeraldApiError, waitForNotification } from './index';

/** The client against a running Herald: API + worker process + FCM emulator. */
let p: Pipeline;
beforeAll(async () => {
  p = await startPipeline();
  await p.startWorker();
}, 60_000);
afterAll(() => p.close());

it('was generated from the document the API serves', async () => {
  const served = await (await fetch(`${p.h.url}/openapi.json`)).json();
  expect(served).toEqual(JSON.parse(readFileSync(path.join(__dirname, '../openapi.json'), 'utf8')));
});

it('registers a device, sends, and polls the notification until it is completed', async () => {
  const t = await p.project();
  const herald = createHeraldClient({ baseUrl: p.h.url, apiKey: t.apiKey.key });
  const userId = unique('customer');
  const deviceToken = unique('fcm-token');

  const registered = await herald.POST('/push/register-device', { body: { userId, deviceToken, provider: 'fcm', platform: 'ios' } });
  expect(registered.response.status).toBe(201);
  expect(registered.data).toMatchObject({ userId, deviceToken, provider: 'fcm', platform: 'ios' });

  const idempotencyKey = unique('order-shipped');
  const sent = await herald.POST('/push/send', {
    params: { header: { 'Idempotency-Key': idempotencyKey } },
    body: { userId, templateId: t.templateId, variables: { name: 'Ada', count: 2 }, data: { orderId: 42 } },
  });
  expect(sent.response.status).toBe(202);
  expect(sent.data).toEqual({ notificationId: expect.any(String), status: 'queued' });
  const notificationId = sent.data!.notificationId;

  const again = await herald.POST('/push/send', { params: { header: { 'Idempotency-Key': idempotencyKey } }, body: { userId, templateId: t.templateId, variables: { name: 'Ada', count: 2 } } });
  expect(again.data?.notificationId).toBe(notificationId);

  const notification = await waitForNotification(herald, notificationId, { intervalMs: 100, timeoutMs: 30_000 });
  expect(notification).toMatchObject({ id: notificationId, status: 'completed', stats: { recipients: 1, devices: 1, sent: 1, failed: 0, invalidTokensRemoved: 0 } });
  expect(notification.deliveries).toEqual([
    { userId, deviceId: registered.data!.id, platform: 'ios', status: 'sent', providerConfigId: t.providers[0].id, providerMessageId: expect.any(String), error: null, possiblyDelivered: false },
  ]);
  const received = p.emulator.received({ token: deviceToken });
  expect(received).toHaveLength(1);
  expect(received[0].message).toMatchObject({ notification: { title: 'Hello Ada', body: 'You have 2 new messages' }, data: { screen: 'inbox', orderId: '42' } });
});

it('returns error bodies typed, and works with a bearer token and projectId', async () => {
  const t = await p.project();
  const herald = createHeraldClient({ baseUrl: p.h.url, apiKey: t.apiKey.key });
  const missing = await herald.POST('/push/send', { body: { userId: 'u', templateId: randomUUID() } });
  expect(missing.data).toBeUndefined();
  expect(missing.error).toEqual({ statusCode: 404, message: 'Template not found', error: 'Not Found' });

  const invalid = await herald.POST('/push/send-bulk', { body: { userIds: [], templateId: t.templateId } });
  expect(invalid.response.status).toBe(400);
  expect(invalid.error?.details).toEqual([{ path: 'userIds', message: 'userIds must not be empty' }]);

  await expect(waitForNotification(herald, randomUUID(), { intervalMs: 10 })).rejects.toThrow(new HeraldApiError(404, { statusCode: 404, message: 'Notification not found', error: 'Not Found' }));

  const dashboard = createHeraldClient({ baseUrl: p.h.url, accessToken: () => t.owner.accessToken });
  await herald.POST('/push/register-device', { body: { userId: 'jwt-user', deviceToken: unique('tok'), provider: 'fcm', platform: 'web' } });
  const devices = await dashboard.GET('/push/devices/{userId}', { params: { path: { userId: 'jwt-user' }, query: { projectId: t.project.id } } });
  expect(devices.response.status).toBe(200);
  expect(devices.data).toEqual([expect.objectContaining({ userId: 'jwt-user', platform: 'web' })]);
  const me = await dashboard.GET('/auth/me');
  expect(me.data?.email).toBe(t.owner.email);
});
