import { deliverJobId, SCHEDULE_AHEAD_MS } from '@herald/core';
import { expectError, startApi, tenant, unique, type Harness } from '@herald/testing';

/**
 * What a send may carry beyond the spec's fields, as the API accepts or refuses it (delivery itself
 * is tested end to end in apps/worker/src/delivery/messages.e2e.test.ts): options, data-only, dry
 * runs, personalised bulk, scheduling and cancelling. Nothing here needs a worker.
 */
let h: Harness;
beforeAll(async () => {
  h = await startApi();
});
afterAll(() => h.close());

async function ready(template: { title?: string; body?: string; options?: unknown } = {}) {
  const t = await tenant(h);
  await h.db.pushConfig.create({ data: { projectId: t.project.id, enabled: true } });
  await h.db.providerConfig.create({ data: { projectId: t.project.id, provider: 'fcm', name: 'fcm', priority: 1, config: {}, secrets: 'sealed', keyId: 'k' } });
  const res = await h.post('/push-templates', {
    token: t.owner.accessToken,
    body: { projectId: t.project.id, name: unique('tpl'), title: template.title ?? 'Hi {{name}}', body: template.body ?? 'Hello', ...(template.options ? { options: template.options } : {}) },
  });
  expect(res.status).toBe(201);
  return { ...t, key: t.apiKey.key, templateId: res.body.id as string };
}

const inAnHour = () => new Date(Date.now() + 3600_000).toISOString();

describe('options on a send', () => {
  it('accepts every option and stores the send’s own ones', async () => {
    const t = await ready();
    const options = {
      priority: 'high',
      ttl: 0,
      collapseKey: 'score_1',
      android: { channelId: 'news', sound: 'default', tag: 't', clickAction: 'OPEN', color: '#112233', icon: 'ic' },
      apns: { sound: 'default', badge: 0, category: 'C', threadId: 'th', contentAvailable: true, mutableContent: false },
      webpush: { link: 'https://app.example.com/x', urgency: 'very-low' },
    };
    const res = await h.post('/push/send', { apiKey: t.key, body: { userId: 'u', templateId: t.templateId, variables: { name: 'a' }, ...options, dataOnly: true, dryRun: true } });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ notificationId: expect.any(String), status: 'queued' });
    const row = await h.db.notification.findUniqueOrThrow({ where: { id: res.body.notificationId } });
    expect(row).toMatchObject({ options, dataOnly: true, dryRun: true, sendAt: null, status: 'queued' });
    const detail = await h.get(`/push/notifications/${row.id}`, { apiKey: t.key });
    expect(detail.body.dryRun).toBe(true);
    expect(detail.body.sendAt).toBeUndefined();
  });

  it.each([
    [{ priority: 'urgent' }, 'priority', 'priority must be high or normal'],
    [{ ttl: -1 }, 'ttl', 'ttl must be at least 0'],
    [{ ttl: 2_419_201 }, 'ttl', 'ttl must be at most 2419200 seconds (28 days)'],
    [{ collapseKey: 'a b' }, 'collapseKey', 'collapseKey must be 1 to 32 letters, digits, "-" or "_"'],
    [{ android: { color: 'blue' } }, 'android.color', 'android.color must be a #rrggbb colour'],
    [{ apns: { badge: 1.5 } }, 'apns.badge', 'apns.badge must be an integer'],
    [{ webpush: { link: 'http://app.example.com' } }, 'webpush.link', 'webpush.link must be an https URL'],
    [{ webpush: { urgency: 'asap' } }, 'webpush.urgency', 'webpush.urgency must be one of very-low, low, normal, high'],
    [{ dataOnly: 'yes' }, 'dataOnly', 'dataOnly must be a boolean'],
    [{ dryRun: 1 }, 'dryRun', 'dryRun must be a boolean'],
  ])('%j → 400 naming %s', async (extra, path, message) => {
    const t = await ready();
    const res = await h.post('/push/send', { apiKey: t.key, body: { userId: 'u', templateId: t.templateId, variables: { name: 'a' }, ...extra } });
    expectError(res, 400);
    expect(res.body.details).toContainEqual({ path, message });
  });

  it("FCM's 4 KB: a message that renders too big is a 400 with its size, before anything is queued", async () => {
    const t = await ready({ body: '{{text}}' });
    const res = await h.post('/push/send', { apiKey: t.key, body: { userId: 'u', templateId: t.templateId, variables: { name: 'a', text: 'x'.repeat(4100) } } });
    // Its render stopped at 4,096 characters: it is over FCM's limit whatever else the message holds.
    expectError(res, 400, /^The message is over 4096 bytes; FCM allows at most 4096 bytes/);
    expect(res.body.details).toEqual([{ path: 'message', message: 'over 4096 bytes' }]);
    expect(await h.db.notification.count({ where: { projectId: t.project.id } })).toBe(0);
    // The same text fits once it is shorter.
    const ok = await h.post('/push/send', { apiKey: t.key, body: { userId: 'u', templateId: t.templateId, variables: { name: 'a', text: 'x'.repeat(3000) } } });
    expect(ok.status).toBe(202);
  });
});

describe('template defaults', () => {
  it('are stored, returned, replaced and cleared; a template without them answers as before', async () => {
    const t = await ready({ options: { priority: 'normal', android: { channelId: 'news' } } });
    const auth = { token: t.owner.accessToken, query: { projectId: t.project.id } };
    const got = await h.get(`/push-templates/${t.templateId}`, auth);
    expect(got.body.options).toEqual({ priority: 'normal', android: { channelId: 'news' } });
    const updated = await h.put(`/push-templates/${t.templateId}`, { ...auth, body: { options: { ttl: 30 } } });
    expect(updated.body.options).toEqual({ ttl: 30 });
    // Export and import carry them.
    const exported = (await h.get(`/push-templates/export/${t.project.id}`, { token: t.owner.accessToken })).body;
    expect(exported.templates[0].options).toEqual({ ttl: 30 });
    const target = await tenant(h);
    const file = new FormData();
    file.append('file', new Blob([JSON.stringify(exported)], { type: 'application/json' }), 'export.json');
    const imported = await h.post(`/push-templates/import/${target.project.id}`, { token: target.owner.accessToken, raw: file });
    expect(imported.status).toBe(201);
    expect(imported.body.templates[0].options).toEqual({ ttl: 30 });

    const cleared = await h.put(`/push-templates/${t.templateId}`, { ...auth, body: { options: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.body).not.toHaveProperty('options');
    expectError(await h.put(`/push-templates/${t.templateId}`, { ...auth, body: { options: { priority: 'max' } } }), 400, /priority must be high or normal/);
  });
});

describe('personalised bulk', () => {
  it('merges each recipient’s variables over the shared ones and reports the missing ones per recipient, queuing nothing', async () => {
    const t = await ready({ title: 'Hi {{name}}', body: 'Your code is {{code}}' });
    const res = await h.post('/push/send-bulk', {
      apiKey: t.key,
      body: {
        templateId: t.templateId,
        variables: { code: 'SHARED' },
        recipients: [{ userId: 'a', variables: { name: 'Ada' } }, { userId: 'b' }, { userId: 'c', variables: { name: 'Cy', code: null } }],
      },
    });
    expectError(res, 400, 'Missing template variables for 2 recipients: recipients.1 (name), recipients.2 (code)');
    expect(res.body.details).toEqual([
      { path: 'recipients.1.variables.name', message: 'Required by the template' },
      { path: 'recipients.2.variables.code', message: 'Required by the template' },
    ]);
    expect(await h.db.notification.count({ where: { projectId: t.project.id } })).toBe(0);

    const ok = await h.post('/push/send-bulk', {
      apiKey: t.key,
      body: { templateId: t.templateId, variables: { code: 'SHARED' }, recipients: [{ userId: 'a', variables: { name: 'Ada' } }, { userId: 'b', variables: { name: 'Bo', code: 'B' } }] },
    });
    expect(ok.status).toBe(202);
    expect(ok.body).toEqual({ notificationId: expect.any(String), status: 'queued', recipients: 2 });
    const row = await h.db.notification.findUniqueOrThrow({ where: { id: ok.body.notificationId } });
    expect(row).toMatchObject({ userIds: ['a', 'b'], variables: { code: 'SHARED' }, recipientVariables: { a: { name: 'Ada' }, b: { name: 'Bo', code: 'B' } } });
  });

  it.each([
    ['both userIds and recipients', { userIds: ['a'], recipients: [{ userId: 'a' }] }, 'recipients', 'give either userIds or recipients, not both'],
    ['neither', {}, 'userIds', 'userIds is required (or recipients)'],
    ['a user twice', { recipients: [{ userId: 'a' }, { userId: 'b' }, { userId: 'a' }] }, 'recipients.2.userId', 'duplicate userId (also recipients.0)'],
    ['501 recipients', { recipients: Array.from({ length: 501 }, (_, i) => ({ userId: `u${i}` })) }, 'recipients', 'recipients must contain at most 500 entries'],
    ['no recipient', { recipients: [] }, 'recipients', 'recipients must not be empty'],
  ])('%s → 400', async (_, extra, path, message) => {
    const t = await ready({ body: 'static' });
    const res = await h.post('/push/send-bulk', { apiKey: t.key, body: { templateId: t.templateId, variables: { name: 'x' }, ...extra } });
    expectError(res, 400);
    expect(res.body.details).toContainEqual({ path, message });
  });

  it('an empty body names userIds beside the other missing fields, as it always did', async () => {
    const t = await ready();
    const res = await h.post('/push/send-bulk', { apiKey: t.key, body: {} });
    expectError(res, 400);
    expect(res.body.details.map((d: { path: string }) => d.path).sort()).toEqual(['templateId', 'userIds']);
    expectError(await h.post('/push/send-bulk', { apiKey: t.key, body: { templateId: t.templateId, recipients: 'all' } }), 400, /recipients/);
    expectError(await h.post('/push/send-bulk', { apiKey: t.key, raw: 'null', contentType: 'application/json' }), 400);
  });

  it('a recipient whose variables cannot be rendered is a 400 naming them, queuing nothing', async () => {
    const t = await ready();
    const res = await h.post('/push/send-bulk', {
      apiKey: t.key,
      body: { templateId: t.templateId, variables: { name: 'x' }, recipients: [{ userId: 'a' }, { userId: 'b', variables: { name: { toString: 'x' } } }] },
    });
    expectError(res, 400, 'recipients.1: The template cannot be rendered with these variables: a value used in the title cannot be turned into text');
    expect(res.body.details).toEqual([{ path: 'recipients.1.variables', message: expect.any(String) }]);
    expect(await h.db.notification.count({ where: { projectId: t.project.id } })).toBe(0);
  });

  it('reports the recipient whose message is over 4 KB', async () => {
    const t = await ready({ body: '{{text}}' });
    const res = await h.post('/push/send-bulk', {
      apiKey: t.key,
      body: { templateId: t.templateId, variables: { name: 'n', text: 'short' }, recipients: [{ userId: 'a' }, { userId: 'b', variables: { text: 'é'.repeat(2100) } }] },
    });
    expectError(res, 400, /^The message for recipients\.1 is \d{4} bytes; FCM allows at most 4096/);
  });
});

describe('scheduled sends', () => {
  it('202 scheduled with sendAt; a delayed job; list and detail show sendAt; Idempotency-Key replays it', async () => {
    const t = await ready();
    // Within SCHEDULE_AHEAD_MS: its delayed job is queued at once (later ones are queued by the worker's sweeper).
    const sendAt = new Date(Date.now() + SCHEDULE_AHEAD_MS - 60_000);
    const offset = sendAt.toISOString().replace('Z', '+00:00');
    const body = { userId: 'u', templateId: t.templateId, variables: { name: 'a' }, sendAt: offset };
    const headers = { 'Idempotency-Key': unique('sched') };
    const res = await h.post('/push/send', { apiKey: t.key, headers, body });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ notificationId: expect.any(String), status: 'scheduled', sendAt: sendAt.toISOString() });
    const job = await h.container.queue.getJob(deliverJobId(res.body.notificationId));
    expect(await job!.getState()).toBe('delayed');
    expect(job!.delay).toBeGreaterThan(SCHEDULE_AHEAD_MS - 120_000);

    const replay = await h.post('/push/send', { apiKey: t.key, headers, body });
    expect(replay.status).toBe(202);
    expect(replay.body).toEqual(res.body);

    const detail = await h.get(`/push/notifications/${res.body.notificationId}`, { apiKey: t.key });
    expect(detail.body).toMatchObject({ status: 'scheduled', sendAt: sendAt.toISOString(), completedAt: null, deliveries: [] });
    const list = await h.get('/push/notifications', { apiKey: t.key });
    expect(list.body.data[0]).toMatchObject({ id: res.body.notificationId, status: 'scheduled', sendAt: sendAt.toISOString() });

    const bulk = await h.post('/push/send-bulk', { apiKey: t.key, body: { userIds: ['a', 'b'], templateId: t.templateId, variables: { name: 'a' }, sendAt: inAnHour() } });
    expect(bulk.body).toEqual({ notificationId: expect.any(String), status: 'scheduled', sendAt: expect.any(String), recipients: 2 });
  });

  it.each([
    ['in the past', () => new Date(Date.now() - 1000).toISOString(), 'sendAt must be in the future'],
    ['over 30 days ahead', () => new Date(Date.now() + 31 * 24 * 3600_000).toISOString(), 'sendAt must be at most 30 days ahead'],
    ['without an offset', () => '2030-01-01T10:00:00', /sendAt must be an ISO 8601 date-time with an offset/],
  ])('sendAt %s → 400, nothing queued', async (_, sendAt, message) => {
    const t = await ready();
    const res = await h.post('/push/send', { apiKey: t.key, body: { userId: 'u', templateId: t.templateId, variables: { name: 'a' }, sendAt: sendAt() } });
    expectError(res, 400, message);
    expect(await h.db.notification.count({ where: { projectId: t.project.id } })).toBe(0);
  });

  it('pre-checks run at acceptance', async () => {
    const t = await ready();
    const res = await h.post('/push/send', { apiKey: t.key, body: { userId: 'u', templateId: t.templateId, sendAt: inAnHour() } });
    expectError(res, 400, 'Missing template variables: name');
  });
});

describe('POST /push/notifications/{id}/cancel', () => {
  it('cancels a scheduled notification (key or JWT): 200 canceled, its job removed; 409 after', async () => {
    const t = await ready();
    const send = async () =>
      (await h.post('/push/send', { apiKey: t.key, body: { userId: 'u', templateId: t.templateId, variables: { name: 'a' }, sendAt: inAnHour() } })).body.notificationId as string;
    const id = await send();
    const res = await h.post(`/push/notifications/${id}/cancel`, { apiKey: t.key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, status: 'canceled', completedAt: expect.any(String), sendAt: expect.any(String) });
    expect(await h.container.queue.getJob(deliverJobId(id))).toBeUndefined();
    expectError(await h.post(`/push/notifications/${id}/cancel`, { apiKey: t.key }), 409, 'Only a scheduled notification can be canceled (this one is canceled)');

    const other = await send();
    const viaJwt = await h.post(`/push/notifications/${other}/cancel`, { token: t.owner.accessToken, query: { projectId: t.project.id } });
    expect(viaJwt.body.status).toBe('canceled');
  });

  it('emits notification.canceled to the endpoints that subscribe to it', async () => {
    const t = await ready();
    const hook = await h.post(`/projects/${t.project.id}/webhooks`, { token: t.owner.accessToken, body: { url: 'https://hooks.example.com/in', events: ['notification.canceled'] } });
    expect(hook.status).toBe(201);
    const sent = await h.post('/push/send', { apiKey: t.key, body: { userId: 'u', templateId: t.templateId, variables: { name: 'a' }, sendAt: inAnHour() } });
    expect((await h.post(`/push/notifications/${sent.body.notificationId}/cancel`, { apiKey: t.key })).status).toBe(200);
    const events = await h.db.webhookEvent.findMany({ where: { projectId: t.project.id } });
    expect(events.map((e) => e.type)).toEqual(['notification.canceled']);
    expect(JSON.parse(String(events[0].body)).data.notification).toMatchObject({ id: sent.body.notificationId, status: 'canceled' });
  });

  it('409 for a notification that is not scheduled; 404 for an unknown one or another project’s', async () => {
    const t = await ready();
    const now = await h.post('/push/send', { apiKey: t.key, body: { userId: 'u', templateId: t.templateId, variables: { name: 'a' } } });
    expectError(await h.post(`/push/notifications/${now.body.notificationId}/cancel`, { apiKey: t.key }), 409, 'Only a scheduled notification can be canceled (this one is queued)');
    expectError(await h.post('/push/notifications/00000000-0000-4000-8000-000000000000/cancel', { apiKey: t.key }), 404, 'Notification not found');
    const stranger = await ready();
    const theirs = await h.post('/push/send', { apiKey: stranger.key, body: { userId: 'u', templateId: stranger.templateId, variables: { name: 'a' }, sendAt: inAnHour() } });
    expectError(await h.post(`/push/notifications/${theirs.body.notificationId}/cancel`, { apiKey: t.key }), 404, 'Notification not found');
    expect((await h.db.notification.findUniqueOrThrow({ where: { id: theirs.body.notificationId } })).status).toBe('scheduled');
  });
});
