import { randomUUID } from 'node:crypto';
import type { OpenAPIV3_1 } from 'openapi-types';
import { PASSWORD, serviceAccount, startPipeline, tokenFromMail, unique, uniqueEmail, type ApiResponse, type Pipeline, type RequestOptions } from '@herald/testing';
import { ResponseValidator, validating } from './test-helpers/response-validator';

/**
 * The API as a customer meets it, checked against its own document: one walk through every
 * operation (API + worker process + FCM emulator), where every response — success or error — must
 * have a documented status and a body that validates against the documented schema.
 */
let p: Pipeline;
let doc: OpenAPIV3_1.Document;
let validator: ResponseValidator;
// Bodies are checked against the document, not typed here.
let api: ReturnType<typeof validating<RequestOptions, ApiResponse<any>>>;

beforeAll(async () => {
  p = await startPipeline({}, { RATE_LIMIT_SEND_BULK: '3' });
  await p.startWorker();
  doc = (await p.h.get('/openapi.json')).body;
  validator = new ResponseValidator(doc);
  api = validating(p.h.request, validator);
}, 60_000);
afterAll(() => p.close());

const expectStatus = (res: { status: number; body: unknown }, status: number) => expect({ status: res.status, body: res.body }).toEqual({ status, body: res.body });

describe('every operation, as documented', () => {
  it('walks the whole API and every response matches the document', async () => {
    // Account
    const email = uniqueEmail('owner');
    expectStatus(await api.post('/auth/signup', { body: { email, password: PASSWORD, firstName: 'Ada', lastName: 'Lovelace' } }), 201);
    let session = (await api.post('/auth/signin', { body: { email, password: PASSWORD } })).body;
    session = (await api.post('/auth/refresh', { body: { refreshToken: session.refreshToken } })).body;
    expect(session.tokenType).toBe('Bearer');
    expectStatus(await api.get('/auth/me', { token: session.accessToken }), 200);
    expectStatus(await api.post('/auth/request-password-reset', { body: { email } }), 200);
    const resetToken = tokenFromMail(await p.h.smtp.waitFor(email), `${p.h.config.appUrl}/reset-password`);
    expectStatus(await api.post('/auth/reset-password', { body: { token: resetToken, newPassword: 'a new password 1' } }), 200);
    session = (await api.post('/auth/signin', { body: { email, password: 'a new password 1' } })).body;
    expectStatus(await api.post('/auth/change-password', { token: session.accessToken, body: { currentPassword: 'a new password 1', newPassword: PASSWORD } }), 200);
    const spare = (await api.post('/auth/signin', { body: { email, password: PASSWORD } })).body;
    expectStatus(await api.post('/auth/logout', { body: { refreshToken: spare.refreshToken } }), 200);
    const token = session.accessToken as string;

    // Projects
    const project = (await api.post('/projects', { token, body: { name: unique('Contract') } })).body;
    const projectId = project.id as string;
    const jwt = { token, query: { projectId } };
    expectStatus(await api.get('/projects', { token }), 200);
    expectStatus(await api.get(`/projects/${projectId}`, { token }), 200);
    expectStatus(await api.get(`/projects/${projectId}/team`, { token }), 200);
    expectStatus(await api.get(`/projects/${projectId}/settings`, { token }), 200);
    expectStatus(await api.put(`/projects/${projectId}/settings`, { token, body: { defaultTimezone: 'UTC', quietHours: null } }), 200);

    // Invites
    const invitee = uniqueEmail('invitee');
    const invite = (await api.post('/projects/invite', { token, body: { email: invitee, projectId, role: 'team_member' } })).body;
    expectStatus(await api.get(`/projects/${projectId}/invites`, { token }), 200);
    expectStatus(await api.post(`/projects/resend-invite/${invite.id}`, { token }), 200);
    const acceptUrl = `${p.h.config.appUrl}/accept-invite`;
    const accepted = (await api.post('/projects/accept-invite', { body: { token: tokenFromMail(await p.h.smtp.nthMail(invitee, 2), acceptUrl), firstName: 'Grace', lastName: 'Hopper', password: PASSWORD } })).body;
    const cancelled = (await api.post('/projects/invite', { token, body: { email: uniqueEmail('cancelled'), projectId } })).body;
    expectStatus(await api.delete(`/projects/cancel-invite/${cancelled.id}`, { token }), 200);

    // API keys
    const key = (await api.post(`/projects/${projectId}/api-keys`, { token, body: { name: 'backend' } })).body;
    const apiKey = key.key as string;
    expectStatus(await api.get(`/projects/${projectId}/api-keys`, { token }), 200);
    expectStatus(await api.patch(`/projects/${projectId}/api-keys/${key.id}`, { token, body: { name: 'backend (production)' } }), 200);
    expectStatus(await api.get(`/projects/${projectId}`, { apiKey }), 200);

    // Templates
    const template = (await api.post('/push-templates', { token, body: { projectId, name: 'order-shipped', title: 'Hi {{name}}', body: 'Order {{order.id}} shipped', data: { screen: 'orders' } } })).body;
    expectStatus(await api.get('/push-templates', { token, query: { projectId } }), 200);
    expectStatus(await api.get('/push-templates', { token }), 200);
    expectStatus(await api.get(`/push-templates/project/${projectId}`, { token, query: { limit: 10 } }), 200);
    expectStatus(await api.get(`/push-templates/${template.id}`, { token }), 200);
    expectStatus(await api.get(`/push-templates/${template.id}/variables`, { token }), 200);
    expectStatus(await api.put(`/push-templates/${template.id}`, { apiKey, body: { body: 'Your order {{order.id}} has shipped' } }), 200);
    expectStatus(await api.post('/push-templates/preview', { apiKey, body: { templateId: template.id, variables: { name: 'Ada' } } }), 200);
    const exported = (await api.get(`/push-templates/export/${projectId}`, { token })).body;
    const file = new FormData();
    file.append('file', new Blob([JSON.stringify({ ...exported, templates: [...exported.templates, { name: 'welcome', title: 'Welcome', body: 'Hello {{name}}', data: {} }] })], { type: 'application/json' }), 'export.json');
    const imported = (await api.post(`/push-templates/import/${projectId}`, { token, raw: file, query: { mode: 'skip' } })).body;
    expect(imported).toMatchObject({ imported: 1, skipped: 1 });
    const welcome = imported.templates.find((t: { name: string }) => t.name === 'welcome');
    expectStatus(await api.delete(`/push-templates/${welcome.id}`, { token }), 200);

    // Push config and providers
    expectStatus(await api.post('/push-config', { ...jwt, body: { enabled: false } }), 201);
    expectStatus(await api.get('/push-config', jwt), 200);
    expectStatus(await api.put('/push-config', { ...jwt, body: { enabled: true } }), 200);
    expectStatus(await api.get('/push-config/provider-schemas', { token }), 200);
    expectStatus(await api.get('/push-config/provider-schemas/fcm', { token }), 200);
    const accounts = [serviceAccount(), serviceAccount()];
    const providers = [];
    for (const [i, a] of accounts.entries()) {
      p.emulator.addServiceAccount({ projectId: a.projectId, clientEmail: a.clientEmail, publicKey: a.publicKey });
      const config = { projectId: a.projectId, clientEmail: a.clientEmail, privateKey: a.privateKey };
      providers.push((await api.post('/push-config/providers', { ...jwt, body: { provider: 'fcm', name: `fcm-${i}`, priority: i + 1, config } })).body);
    }
    expect(providers[0].config.privateKey).toBe('********');
    expectStatus(await api.get('/push-config/providers', jwt), 200);
    expectStatus(await api.put('/push-config/providers/priorities', { ...jwt, body: { providers: [{ id: providers[0].id, priority: 1 }, { id: providers[1].id, priority: 5 }] } }), 200);
    expectStatus(await api.put(`/push-config/providers/${providers[1].id}`, { token, body: { name: 'fcm-backup', enabled: true } }), 200);
    expect((await api.post(`/push-config/providers/${providers[0].id}/test`, { token })).body).toEqual({ ok: true });
    expectStatus(await api.delete(`/push-config/providers/${providers[1].id}`, { token }), 200);

    // Devices
    const userId = unique('customer');
    const device = { userId, deviceToken: unique('token'), provider: 'fcm', platform: 'android' };
    expectStatus(await api.post('/push/register-device', { apiKey, body: device }), 201);
    expectStatus(await api.post('/push/register-device', { apiKey, body: device }), 200);
    expectStatus(await api.post('/push/register-device', { ...jwt, body: { ...device, deviceToken: unique('gone') } }), 201);
    expectStatus(await api.get(`/push/devices/${userId}`, jwt), 200);
    expectStatus(await api.post('/push/unregister-device', { apiKey, body: { deviceToken: unique('never-registered') } }), 200);

    // Device attributes, segments and audience counts
    const fan = unique('fan');
    expectStatus(await api.post('/push/register-device', { apiKey, body: { ...device, userId: fan, deviceToken: unique('fan'), tags: { plan: 'pro' }, timezone: 'Europe/Berlin', locale: 'de-DE', appVersion: '2.1.0' } }), 201);
    expectStatus(await api.patch(`/push/users/${fan}/attributes`, { apiKey, body: { tags: { seats: 3 }, appVersion: '2.2' } }), 200);
    expectStatus(await api.post('/push/users/attributes', { ...jwt, body: { users: [{ userId: fan, locale: 'en-GB' }, { userId: 'nobody', timezone: 'UTC' }] } }), 200);
    const filter = { and: [{ field: 'tags.plan', op: 'eq', value: 'pro' }, { field: 'lastSeenAt', op: 'gte', value: { within: '30d' } }] };
    const segment = (await api.post(`/projects/${projectId}/segments`, { token, body: { name: 'pro', filter } })).body;
    const segmentPath = `/projects/${projectId}/segments/${segment.id}`;
    expectStatus(await api.get(`/projects/${projectId}/segments`, { token }), 200);
    expectStatus(await api.get(segmentPath, { token }), 200);
    expectStatus(await api.put(segmentPath, { token, body: { description: 'Paying users' } }), 200);
    expectStatus(await api.patch(segmentPath, { token, body: { name: 'pro, active' } }), 200);
    expect((await api.post('/push/audience/count', { apiKey, body: { segmentId: segment.id } })).body).toEqual({ devices: 1, users: 1, byPlatform: { android: 1, ios: 0, web: 0 } });
    expectStatus(await api.post('/push/audience/count', { ...jwt, body: { all: true } }), 200);
    expectStatus(await api.delete(segmentPath, { token }), 200);

    // Sending, through the worker and the emulator
    const variables = { name: 'Ada', order: { id: 1234 } };
    const send = (await api.post('/push/send', { apiKey, headers: { 'Idempotency-Key': unique('idem') }, body: { userId, templateId: template.id, variables } })).body;
    const bulk = (await api.post('/push/send-bulk', { ...jwt, body: { userIds: [userId, 'nobody'], templateId: template.id, variables } })).body;
    expect(bulk.recipients).toBe(2);
    await p.waitForNotification(apiKey, send.notificationId);
    await p.waitForNotification(apiKey, bulk.notificationId);
    const broadcast = (await api.post('/push/broadcast', { apiKey, body: { templateId: template.id, variables, audience: { all: true } } })).body;
    expect(await p.waitForNotification(apiKey, broadcast.notificationId)).toMatchObject({ status: 'completed', progress: { fannedOut: true } });
    expect((await api.get(`/push/notifications/${broadcast.notificationId}?deliveriesLimit=1`, { apiKey })).body.deliveries).toHaveLength(1);
    const delivered = (await api.get(`/push/notifications/${send.notificationId}`, { apiKey })).body;
    expect(delivered).toMatchObject({ status: 'completed', stats: { devices: 2, sent: 2 } });
    const bulkResult = (await api.get(`/push/notifications/${bulk.notificationId}`, jwt)).body;
    expect(bulkResult.deliveries.map((d: { status: string }) => d.status).sort()).toEqual(['no_devices', 'sent', 'sent']);
    expectStatus(await api.get('/push/notifications', { apiKey, query: { page: 1, limit: 5 } }), 200);
    // Engagement: events about a delivered message, a template's and a label's series
    const deliveryId = (await p.h.db.delivery.findFirstOrThrow({ where: { notificationId: send.notificationId, status: 'sent' } })).id;
    const reported = await api.post('/push/events', { apiKey, body: { events: [{ deliveryId, type: 'opened' }, { deliveryId: randomUUID(), type: 'opened' }] } });
    expectStatus(reported, 200);
    expect(reported.body.refused).toHaveLength(1);
    expectStatus(await api.get(`/push-templates/${template.id}/engagement`, { apiKey }), 200);
    expectStatus(await api.get(`/push/notifications/${send.notificationId}/events`, { apiKey }), 200);
    expectStatus(await api.get('/push/analytics-labels/orders/engagement', jwt), 200);
    const overview = await api.get(`/projects/${projectId}/overview`, { token });
    expectStatus(overview, 200);
    expect(overview.body.last24h.sent).toBeGreaterThanOrEqual(4);
    const sendAt = new Date(Date.now() + 3600_000).toISOString();
    const scheduled = await api.post('/push/send', { apiKey, body: { userId, templateId: template.id, variables, sendAt, priority: 'high', ttl: 60 } });
    expectStatus(scheduled, 202);
    expectStatus(await api.post(`/push/notifications/${scheduled.body.notificationId}/cancel`, { apiKey }), 200);
    // A staged rollout halted after its first stage (as its worker leaves it), read and resumed.
    const rollout = {
      stages: [10, 100],
      waitSeconds: 0,
      haltWhen: { invalidTokenRate: 0.2 },
      currentStage: 0,
      stageFigures: [{ percent: 10, devices: 10, sent: 6, failed: 4, invalidTokens: 4 }],
      haltedAt: new Date().toISOString(),
      haltReason: 'Invalid-token rate 40 % over the bound 20 % in stage 1',
    };
    const halted = await p.h.db.notification.create({ data: { projectId, templateId: template.id, userIds: [], variables: {}, audience: { all: true }, status: 'halted', fannedOut: true, rollout } });
    expectStatus(await api.get(`/push/notifications/${halted.id}`, { apiKey }), 200);
    expectStatus(await api.post(`/push/notifications/${halted.id}/resume`, { apiKey }), 200);

    // Webhooks: their management and delivery log (the worker's side has its own end-to-end tests)
    const hook = (await api.post(`/projects/${projectId}/webhooks`, { token, body: { url: 'https://hooks.example.com/herald', events: ['notification.completed'], description: 'orders' } })).body;
    const hookPath = `/projects/${projectId}/webhooks/${hook.id}`;
    expectStatus(await api.get(`/projects/${projectId}/webhooks`, { token }), 200);
    expectStatus(await api.get(hookPath, { token }), 200);
    expectStatus(await api.put(hookPath, { token, body: { events: ['notification.completed', 'device.token_removed'] } }), 200);
    expectStatus(await api.post(`${hookPath}/rotate-secret`, { token }), 200);
    expectStatus(await api.post(`${hookPath}/test`, { token }), 202);
    expectStatus(await api.get(`${hookPath}/deliveries`, { token }), 200);
    expectStatus(await api.delete(hookPath, { token }), 200);

    // The audit log of every change above
    expectStatus(await api.get(`/projects/${projectId}/audit-log`, { token, query: { limit: 5, action: 'webhook.created' } }), 200);
    expectStatus(await api.get(`/projects/${projectId}/audit-log/export`, { token }), 200);
    expectStatus(await api.get(`/projects/${projectId}/audit-log/verify`, { token }), 200);

    // Health and the document
    expectStatus(await api.get('/health'), 200);
    expectStatus(await api.get('/ready'), 200);
    expectStatus(await api.get('/openapi.json'), 200);

    // Removals
    expectStatus(await api.delete(`/projects/${projectId}/members/${accepted.user.id}`, { token }), 200);
    expectStatus(await api.delete(`/push-templates/${template.id}`, { token }), 200);
    expectStatus(await api.delete(`/projects/${projectId}/api-keys/${key.id}`, { token }), 200);
    expectStatus(await api.delete(`/projects/${projectId}`, { token }), 200);

    // Every operation's success answers were seen (and validated) above.
    const unseen = Object.entries(doc.paths!).flatMap(([path, item]) =>
      Object.entries(item as Record<string, OpenAPIV3_1.OperationObject>).flatMap(([method, op]) =>
        Object.keys(op.responses ?? {})
          .filter((s) => s.startsWith('2'))
          .map((s) => `${method.toUpperCase()} ${path} ${s}`)
          .filter((k) => !validator.seen.has(k)),
      ),
    );
    expect(unseen).toEqual([]);
  });
});

describe('error responses, as documented', () => {
  it('validation (400 with details), credentials (401), roles (403), unknown ids (404), conflicts (409)', async () => {
    const t = await p.project();
    const member = await p.h.user();
    await p.h.db.projectMember.create({ data: { projectId: t.project.id, userId: member.id, role: 'team_member' } });

    const invalid = await api.post('/push/send', { apiKey: t.apiKey.key, body: { userId: '', templateId: 'nope' } });
    expect(invalid.status).toBe(400);
    expect(invalid.body.details.map((d: { path: string }) => d.path)).toEqual(['userId', 'templateId']);
    expect((await api.post('/push/send', { apiKey: t.apiKey.key, body: { userId: 'u', templateId: t.templateId } })).body.message).toBe('Missing template variables: name, count');
    expect((await api.get('/push/notifications', { token: t.owner.accessToken })).status).toBe(400);

    expect((await api.get('/auth/me')).body.message).toBe('Missing or invalid authorization header');
    expect((await api.post('/push/send', { apiKey: 'hk_unknown', body: {} })).body.message).toBe('Invalid API key');
    expect((await api.post('/auth/signin', { body: { email: t.owner.email, password: 'wrong password' } })).status).toBe(401);

    expect((await api.post(`/projects/${t.project.id}/api-keys`, { token: member.accessToken, body: { name: 'x' } })).status).toBe(403);
    const other = await p.project();
    expect((await api.get('/push/notifications', { apiKey: t.apiKey.key, query: { projectId: other.project.id } })).status).toBe(403);

    expect((await api.get(`/push-templates/${randomUUID()}`, { token: t.owner.accessToken })).body.message).toBe('Template not found');
    expect((await api.get(`/push/notifications/${randomUUID()}`, { apiKey: t.apiKey.key })).status).toBe(404);
    expect((await api.get(`/projects/${other.project.id}/team`, { token: t.owner.accessToken })).status).toBe(404);
    expect((await api.get('/push-config/provider-schemas/apns', { token: t.owner.accessToken })).status).toBe(404);

    expect((await api.post('/auth/signup', { body: { email: t.owner.email, password: PASSWORD, firstName: 'A', lastName: 'B' } })).status).toBe(409);
    expect((await api.post('/push-config', { token: t.owner.accessToken, query: { projectId: t.project.id }, body: {} })).status).toBe(409);
    await api.put('/push-config', { token: t.owner.accessToken, query: { projectId: t.project.id }, body: { enabled: false } });
    expect((await api.post('/push/send', { apiKey: t.apiKey.key, body: { userId: 'u', templateId: t.templateId, variables: { name: 'a', count: 1 } } })).body.message).toBe(
      'Push notifications are disabled for this project',
    );
  });

  it('bad uploads (413, 415) and rate limits (429)', async () => {
    const t = await p.project();
    const tooLarge = await api.post('/push/register-device', { apiKey: t.apiKey.key, raw: JSON.stringify({ userId: 'x'.repeat(1.1 * 1024 * 1024) }), contentType: 'application/json' });
    expect(tooLarge.status).toBe(413);
    expect((await api.post('/push/send', { apiKey: t.apiKey.key, raw: 'userId=1', contentType: 'text/plain' })).status).toBe(415);
    const notJson = new FormData();
    notJson.append('file', new Blob(['{}'], { type: 'text/plain' }), 'x.txt');
    expect((await api.post(`/push-templates/import/${t.project.id}`, { token: t.owner.accessToken, raw: notJson })).status).toBe(415);

    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await api.post('/push/send-bulk', { apiKey: t.apiKey.key, body: {} })).status);
    expect(statuses).toEqual([400, 400, 400, 429]);
  });
});
