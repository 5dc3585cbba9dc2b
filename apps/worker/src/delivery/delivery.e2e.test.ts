import { expectError, serviceAccount, startPipeline, unique, waitUntil, type Pipeline } from '@herald/testing';

/**
 * The whole pipeline: API (this process) → Postgres + Redis → worker (a child process) → FCM
 * emulator over a socket, through the production FCM client.
 */
let p: Pipeline;
beforeAll(async () => {
  p = await startPipeline({ DELIVERY_MAX_ATTEMPTS: '3' });
  await p.startWorker();
}, 60_000);
afterAll(() => p.close());

/** Sends the project's template to one user (with the API key) and waits for the final status. */
async function sendAndWait(t: { apiKey: { key: string }; templateId: string }, userId: string) {
  const res = await p.h.post('/push/send', { apiKey: t.apiKey.key, body: { userId, templateId: t.templateId, variables: { name: 'a', count: 1 } } });
  expect(res.status).toBe(202);
  return p.waitForNotification(t.apiKey.key, res.body.notificationId);
}

const devicesFor = (prefix: string, users: number, perUser: number) =>
  Array.from({ length: users }, (_, u) => Array.from({ length: perUser }, (_, d) => ({ userId: `${prefix}-user-${u}`, deviceToken: `${prefix}-tok-${u}-${d}` }))).flat();

describe('send', () => {
  it('delivers the exact rendered message to every device of the user', async () => {
    const t = await p.project();
    const userId = unique('cust');
    await p.registerDevices(t.apiKey.key, [
      { userId, deviceToken: unique('a'), platform: 'android' },
      { userId, deviceToken: unique('w'), platform: 'web' },
    ]);
    const res = await p.h.post('/push/send', {
      apiKey: t.apiKey.key,
      body: { userId, templateId: t.templateId, variables: { name: 'Tom & Jerry <3', count: 3 }, imageUrl: 'https://cdn.example.com/a.png', data: { screen: 'chat', unread: 3, meta: { a: 1 } } },
    });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ notificationId: expect.any(String), status: 'queued' });

    const n = await p.waitForNotification(t.apiKey.key, res.body.notificationId);
    expect(n).toMatchObject({ id: res.body.notificationId, status: 'completed', templateId: t.templateId, stats: { recipients: 1, devices: 2, sent: 2, failed: 0, invalidTokensRemoved: 0 } });
    expect(n.completedAt).toEqual(expect.any(String));
    expect(n.deliveries).toHaveLength(2);
    for (const d of n.deliveries) {
      expect(d).toEqual({ userId, deviceId: expect.any(String), platform: expect.any(String), status: 'sent', providerConfigId: t.providers[0].id, providerMessageId: expect.stringMatching(/^projects\/.+\/messages\/\d+$/), error: null, possiblyDelivered: false });
    }
    const devices = (await p.h.get(`/push/devices/${userId}`, { token: t.owner.accessToken, query: { projectId: t.project.id } })).body;
    for (const device of devices) {
      const [received] = p.emulator.received({ token: device.deviceToken });
      expect(received.message).toMatchObject({
        token: device.deviceToken,
        notification: { title: 'Hello Tom & Jerry <3', body: 'You have 3 new messages', image: 'https://cdn.example.com/a.png' },
        // the template's data overlaid by the send's, every value a string
        data: { screen: 'chat', unread: '3', meta: '{"a":1}' },
      });
    }
  });

  it('a user without devices: failed, with a no_devices delivery', async () => {
    const t = await p.project();
    const res = await p.h.post('/push/send', { apiKey: t.apiKey.key, body: { userId: 'nobody', templateId: t.templateId, variables: { name: 'x', count: 1 } } });
    const n = await p.waitForNotification(t.apiKey.key, res.body.notificationId);
    expect(n.status).toBe('failed');
    expect(n.stats).toEqual({ recipients: 1, devices: 0, sent: 0, failed: 0, invalidTokensRemoved: 0 });
    expect(n.deliveries).toEqual([{ userId: 'nobody', deviceId: null, platform: null, status: 'no_devices', providerConfigId: null, providerMessageId: null, error: null, possiblyDelivered: false }]);
  });

  it('works with a JWT and projectId, and lists notifications newest first', async () => {
    const t = await p.project();
    const userId = unique('cust');
    await p.registerDevices(t.apiKey.key, [{ userId, deviceToken: unique('j') }]);
    const auth = { token: t.owner.accessToken, query: { projectId: t.project.id } };
    const first = await p.h.post('/push/send', { ...auth, body: { userId, templateId: t.templateId, variables: { name: 'a', count: 1 } } });
    const second = await p.h.post('/push/send', { ...auth, body: { userId, templateId: t.templateId, variables: { name: 'b', count: 2 } } });
    expect([first.status, second.status]).toEqual([202, 202]);
    await p.waitForNotification(t.apiKey.key, second.body.notificationId);
    const list = await p.h.get('/push/notifications', { ...auth, query: { projectId: t.project.id, limit: 1 } });
    expect(list.status).toBe(200);
    expect(list.body.meta).toEqual({ page: 1, limit: 1, total: 2, totalPages: 2 });
    expect(list.body.data[0].id).toBe(second.body.notificationId);
    const viaJwt = await p.h.get(`/push/notifications/${first.body.notificationId}`, auth);
    expect(viaJwt.status).toBe(200);
    expectError(await p.h.get(`/push/notifications/${first.body.notificationId}`, { token: t.owner.accessToken }), 400, /projectId/);
  });
});

describe('send-bulk', () => {
  it('500 users × 2 devices: every device exactly once, duplicates in userIds counted once', async () => {
    const t = await p.project();
    const prefix = unique('bulk');
    const devices = devicesFor(prefix, 500, 2);
    await p.h.db.device.createMany({ data: devices.map((d) => ({ projectId: t.project.id, provider: 'fcm', platform: 'android', ...d })) });
    const userIds = [...new Set(devices.map((d) => d.userId))];
    const res = await p.h.post('/push/send-bulk', {
      apiKey: t.apiKey.key,
      body: { userIds: [...userIds.slice(0, 499), userIds[0], userIds[499]].slice(0, 500), templateId: t.templateId, variables: { name: 'all', count: 9 } },
    });
    // 499 distinct + a duplicate of the first = 500 entries, 499 recipients
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ notificationId: expect.any(String), status: 'queued', recipients: 499 });
    const all = await p.h.post('/push/send-bulk', { apiKey: t.apiKey.key, body: { userIds, templateId: t.templateId, variables: { name: 'all', count: 9 } } });
    expect(all.body.recipients).toBe(500);

    const n = await p.waitForNotification(t.apiKey.key, all.body.notificationId);
    expect(n.status).toBe('completed');
    expect(n.stats).toEqual({ recipients: 500, devices: 1000, sent: 1000, failed: 0, invalidTokensRemoved: 0 });
    await p.waitForNotification(t.apiKey.key, res.body.notificationId);
    for (const d of devices) {
      const got = p.emulator.received({ token: d.deviceToken }).filter((m) => (m.message as { notification: { title: string } }).notification.title === 'Hello all');
      // one from each of the two notifications (the first skipped the 500th user)
      expect(got).toHaveLength(d.userId === userIds[499] ? 1 : 2);
    }
  }, 60_000);
});

describe('delivery semantics', () => {
  it('prunes unregistered and invalid tokens, counting them', async () => {
    const t = await p.project();
    const userId = unique('cust');
    const good = unique('ok');
    await p.registerDevices(t.apiKey.key, [
      { userId, deviceToken: good },
      { userId, deviceToken: unique('unregistered') },
      { userId, deviceToken: unique('invalid') },
    ]);
    const n = await sendAndWait(t, userId);
    expect(n.status).toBe('partially_failed');
    expect(n.stats).toEqual({ recipients: 1, devices: 3, sent: 1, failed: 2, invalidTokensRemoved: 2 });
    const left = await p.h.get(`/push/devices/${userId}`, { token: t.owner.accessToken, query: { projectId: t.project.id } });
    expect(left.body.map((d: { deviceToken: string }) => d.deviceToken)).toEqual([good]);
  });

  it('routes a sender-mismatched token to the provider of its Firebase project', async () => {
    const [a, b] = [serviceAccount(), serviceAccount()];
    p.emulator.setFault({ kind: 'mismatch', project: a.projectId, tokenPrefix: 'bapp-' });
    const t = await p.project([a, b]);
    const userId = unique('cust');
    const fromA = unique('aapp');
    const fromB = unique('bapp');
    await p.registerDevices(t.apiKey.key, [
      { userId, deviceToken: fromA },
      { userId, deviceToken: fromB },
    ]);
    const n = await sendAndWait(t, userId);
    expect(n.status).toBe('completed');
    expect(p.emulator.received({ token: fromA }).map((m) => m.project)).toEqual([a.projectId]);
    expect(p.emulator.received({ token: fromB }).map((m) => m.project)).toEqual([b.projectId]);
    const byToken = Object.fromEntries(n.deliveries.map((d: { deviceId: string; providerConfigId: string }) => [d.deviceId, d.providerConfigId]));
    expect(new Set(Object.values(byToken))).toEqual(new Set([t.providers[0].id, t.providers[1].id]));
  });

  it('a token no provider accepts (mismatch everywhere) is pruned', async () => {
    const t = await p.project([serviceAccount(), serviceAccount()]);
    const userId = unique('cust');
    await p.registerDevices(t.apiKey.key, [{ userId, deviceToken: unique('mismatch') }]);
    const n = await sendAndWait(t, userId);
    expect(n.stats).toMatchObject({ sent: 0, failed: 1, invalidTokensRemoved: 1 });
  });

  it('fails over when the first Firebase project is down (after retries)', async () => {
    const [a, b] = [serviceAccount(), serviceAccount()];
    p.emulator.setFault({ kind: 'unavailable', project: a.projectId });
    const t = await p.project([a, b]);
    const userId = unique('cust');
    const token = unique('tok');
    await p.registerDevices(t.apiKey.key, [{ userId, deviceToken: token }]);
    const n = await sendAndWait(t, userId);
    expect(n.status).toBe('completed');
    expect(n.deliveries[0].providerConfigId).toBe(t.providers[1].id);
    expect(p.emulator.received({ token }).map((m) => m.project)).toEqual([b.projectId]);
  });

  it('fails over when the credentials are rejected, and skips a disabled provider', async () => {
    const [a, b, c] = [serviceAccount(), serviceAccount(), serviceAccount()];
    p.emulator.setFault({ kind: 'revoked', project: b.projectId });
    const t = await p.project([a, b, c]);
    await p.h.put(`/push-config/providers/${t.providers[0].id}`, { token: t.owner.accessToken, body: { enabled: false } });
    const userId = unique('cust');
    const token = unique('tok');
    await p.registerDevices(t.apiKey.key, [{ userId, deviceToken: token }]);
    const n = await sendAndWait(t, userId);
    expect(n.status).toBe('completed');
    expect(n.deliveries[0].providerConfigId).toBe(t.providers[2].id);
    expect(p.emulator.received({ token }).map((m) => m.clientEmail)).toEqual([c.clientEmail]);
  });

  it('503 and 429 tokens are delivered exactly once after retries', async () => {
    const t = await p.project();
    const userId = unique('cust');
    const flaky = `unavailable2-${unique('t')}`;
    const limited = `ratelimit1-${unique('t')}`;
    await p.registerDevices(t.apiKey.key, [
      { userId, deviceToken: flaky },
      { userId, deviceToken: limited },
    ]);
    const n = await sendAndWait(t, userId);
    expect(n.status).toBe('completed');
    expect(n.stats).toMatchObject({ devices: 2, sent: 2, failed: 0 });
    expect(p.emulator.received({ token: flaky })).toHaveLength(1);
    expect(p.emulator.received({ token: limited })).toHaveLength(1);
    const rows = await p.h.db.delivery.findMany({ where: { notificationId: n.id } });
    expect(rows.map((r) => r.attempts).sort()).toEqual([1, 2]);
    // A 503 leaves the fate unknown (FCM may have shown it): marked, and the retry carried the same ids.
    // A 429 refused the message: not marked.
    const [flakyRow, limitedRow] = [flaky, limited].map((token) => rows.find((r) => r.attempts === (token === flaky ? 2 : 1))!);
    expect([flakyRow.possiblyDelivered, limitedRow.possiblyDelivered]).toEqual([true, false]);
    const copy = p.emulator.received({ token: flaky })[0].message as { data: Record<string, string>; android?: { notification?: { tag?: string } } };
    expect(copy.data.herald_delivery_id).toBe(flakyRow.id);
    expect(copy.android?.notification?.tag).toBe(n.id.replaceAll('-', ''));
    // Planned with time-ordered ids (UUID version 7), which Postgres appends to the primary key's index.
    expect(rows.map((r) => r.id[14])).toEqual(['7', '7']);
  });

  it('a device that keeps failing transiently fails after DELIVERY_MAX_ATTEMPTS', async () => {
    const t = await p.project();
    const userId = unique('cust');
    await p.registerDevices(t.apiKey.key, [{ userId, deviceToken: unique('internal') }]);
    const n = await sendAndWait(t, userId);
    expect(n.status).toBe('failed');
    expect(n.deliveries[0]).toMatchObject({ status: 'failed', error: expect.any(String) });
    expect(p.emulator.stats().rejected).toBeGreaterThanOrEqual(3);
  });
});

describe('Idempotency-Key', () => {
  it('the same key returns the first response and sends nothing again', async () => {
    const t = await p.project();
    const userId = unique('cust');
    const token = unique('tok');
    await p.registerDevices(t.apiKey.key, [{ userId, deviceToken: token }]);
    const key = unique('idem');
    const body = { userId, templateId: t.templateId, variables: { name: 'a', count: 1 } };
    const first = await p.h.post('/push/send', { apiKey: t.apiKey.key, body, headers: { 'Idempotency-Key': key } });
    const again = await p.h.post('/push/send', { apiKey: t.apiKey.key, body, headers: { 'Idempotency-Key': key } });
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(again.body).toEqual(first.body);
    await p.waitForNotification(t.apiKey.key, first.body.notificationId);
    const concurrent = await Promise.all(Array.from({ length: 5 }, () => p.h.post('/push/send', { apiKey: t.apiKey.key, body, headers: { 'Idempotency-Key': `${key}-c` } })));
    expect(new Set(concurrent.map((r) => r.body.notificationId)).size).toBe(1);
    await p.waitForNotification(t.apiKey.key, concurrent[0].body.notificationId);
    expect(p.emulator.received({ token })).toHaveLength(2);
    // another project may use the same key
    const other = await p.project();
    const theirs = await p.h.post('/push/send', { apiKey: other.apiKey.key, body: { ...body, templateId: other.templateId }, headers: { 'Idempotency-Key': key } });
    expect(theirs.body.notificationId).not.toBe(first.body.notificationId);
  });
});

describe('warm-up', () => {
  it('a fresh worker warms its delivery code up against a loopback stand-in, never the configured FCM', async () => {
    // The worker was started at the top of this file; its warm-up has ended by now, or soon will.
    const line = await waitUntil(() => p.workers[0].output.join('').split('\n').find((l) => l.includes('delivery warmed up')), 30_000, 'the worker to log its warm-up', 100);
    expect(JSON.parse(line)).toMatchObject({ messages: expect.any(Number), interrupted: expect.any(Boolean) });
    // Its messages (tokens `warm-up-token-…`) went to its own loopback server only.
    expect(p.emulator.received().filter((m) => m.token?.startsWith('warm-up'))).toEqual([]);
    expect(p.emulator.validated().filter((m) => m.token?.startsWith('warm-up'))).toEqual([]);
  });
});

describe('worker metrics', () => {
  it('/metrics on the worker reports outcomes, failovers, pruned tokens, provider latency and the queue', async () => {
    const started = p.workers[0].output.join('').split('\n').find((l) => l.includes('Herald worker started'))!;
    const { metricsPort } = JSON.parse(started) as { metricsPort: number };
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? NaN);
    expect(value(/^herald_deliveries_total\{outcome="sent"\} (\d+)/m)).toBeGreaterThan(1000);
    expect(value(/^herald_deliveries_total\{outcome="invalid_token"\} (\d+)/m)).toBeGreaterThanOrEqual(3);
    expect(value(/^herald_delivery_failovers_total (\d+)/m)).toBeGreaterThanOrEqual(3);
    expect(value(/^herald_delivery_retries_total (\d+)/m)).toBeGreaterThanOrEqual(3);
    expect(value(/^herald_tokens_pruned_total (\d+)/m)).toBeGreaterThanOrEqual(3);
    expect(value(/^herald_notifications_finished_total\{status="completed"\} (\d+)/m)).toBeGreaterThan(5);
    expect(text).toMatch(/^herald_provider_batch_duration_seconds_count\{provider="fcm"\} \d+/m);
    expect(text).toMatch(/^herald_queue_jobs\{state="waiting"\} \d+/m);
    expect(text).toMatch(/^herald_queue_oldest_waiting_seconds \d/m);
  });
});
