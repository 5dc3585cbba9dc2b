import { generateKeyPairSync } from 'node:crypto';
import { startFcmEmulator, type FcmEmulator } from '@herald/fcm-emulator';
import { createPushProvider } from '../registry';
import type { FcmCredentials, PushMessage, TokenResult } from '../types';
import { ProviderPool } from '../pool';
import { createFcmProvider, toFcmMessage, type FcmLogger, type FcmProvider, type FcmProviderOptions } from './index';

const keys = () =>
  generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });

const acme = keys();
const credentials: FcmCredentials = { projectId: 'acme', clientEmail: 'herald@acme.iam.gserviceaccount.com', privateKey: acme.privateKey };
const push = (token: string, extra: Partial<PushMessage> = {}): PushMessage => ({ token, title: 'Hello', body: 'World', ...extra });

describe('FCM provider against the emulator', () => {
  let emu: FcmEmulator;
  const open: FcmProvider[] = [];
  const provider = (options: FcmProviderOptions = {}, creds = credentials) => {
    const p = createFcmProvider(creds, { emulatorHost: emu.host, ...options });
    open.push(p);
    return p;
  };

  beforeAll(async () => {
    emu = await startFcmEmulator({ serviceAccounts: [{ projectId: 'acme', clientEmail: credentials.clientEmail, publicKey: acme.publicKey }] });
  });
  afterAll(() => emu.close());
  beforeEach(() => emu.reset());
  afterEach(async () => {
    await Promise.all(open.splice(0).map((p) => p.close()));
  });

  describe('sending', () => {
    it('sends one message and answers its name', async () => {
      const results = await provider().send([push('device-1', { data: { orderId: '42' } })]);
      const [received] = emu.received();
      expect(results).toEqual([{ status: 'sent', providerMessageId: received.name }]);
      expect(received).toMatchObject({
        project: 'acme',
        token: 'device-1',
        clientEmail: credentials.clientEmail,
        message: { token: 'device-1', notification: { title: 'Hello', body: 'World' }, data: { orderId: '42' } },
      });
    });

    it('a batch of one content carries each message its own delivery id, and the shared collapse id', async () => {
      const data = { orderId: '42' };
      const ids = ['0190f3a2-0000-7000-8000-000000000001', '0190f3a2-0000-7000-8000-000000000002', '0190f3a2-0000-7000-8000-000000000003'];
      const results = await provider().send(ids.map((deliveryId, i) => push(`dev-${i}`, { data, platform: 'android', deliveryId, collapseId: 'c0ffee' })));
      expect(results.map((r) => r.status)).toEqual(['sent', 'sent', 'sent']);
      for (const [i, deliveryId] of ids.entries()) {
        expect(emu.received({ token: `dev-${i}` })[0].message).toEqual({
          token: `dev-${i}`,
          notification: { title: 'Hello', body: 'World' },
          data: { orderId: '42', herald_delivery_id: deliveryId },
          android: { notification: { tag: 'c0ffee' } },
        });
      }
    });

    it('sends platform options as FCM documents them, and FCM accepts them', async () => {
      const now = Math.floor(Date.now() / 1000) * 1000;
      const options = { priority: 'normal', ttl: 60, collapseKey: 'k1', apns: { badge: 4, threadId: 'chat' } } as const;
      const results = await provider({ now: () => now }).send([push('ios-1', { platform: 'ios', options }), push('web-1', { platform: 'web', options, dataOnly: true })]);
      expect(results.map((r) => r.status)).toEqual(['sent', 'sent']);
      expect(emu.received({ token: 'ios-1' })[0].message).toEqual({
        token: 'ios-1',
        notification: { title: 'Hello', body: 'World' },
        apns: {
          headers: { 'apns-priority': '5', 'apns-expiration': String(now / 1000 + 60), 'apns-collapse-id': 'k1', 'apns-push-type': 'alert' },
          payload: { aps: { badge: 4, 'thread-id': 'chat' } },
        },
      });
      expect(emu.received({ token: 'web-1' })[0].message).toEqual({ token: 'web-1', data: { title: 'Hello', body: 'World' }, webpush: { headers: { Urgency: 'normal', TTL: '60', Topic: 'k1' } } });
    });

    it('a bulk whose messages share their content sends each exactly as its own message would be', async () => {
      // Built once per content and batch, with the token spliced in: any token, any platform, any option.
      const now = Math.floor(Date.now() / 1000) * 1000 + 500;
      const shared = { title: 'Sale "today"', body: 'Up to 50 %\n✓', data: { a: '1' }, options: { ttl: 30, collapseKey: 'k', apns: { badge: 2 } } };
      const other = { title: 'Other', body: 'x', dataOnly: true, options: shared.options };
      const messages: PushMessage[] = Array.from({ length: 12 }, (_, i) => ({
        token: [`plain-${i}`, `quote"-${i}`, `uni\u2028ç\\-${i}`][i % 3],
        ...(i % 4 === 3 ? other : i % 4 === 2 ? { ...shared, body: 'Only the body differs' } : shared),
        platform: (['android', 'ios', 'web'] as const)[i % 3],
      }));
      const results = await provider({ now: () => now }).send(messages);
      expect(results.every((r) => r.status === 'sent')).toBe(true);
      expect(emu.received()).toHaveLength(12);
      for (const m of messages) expect(emu.received({ token: m.token })[0].message).toEqual(toFcmMessage(m, now));
    });

    it('a content shared across a second boundary gets the APNs expiration of the second it is sent in', async () => {
      let now = Date.now();
      const options = { ttl: 60 };
      const m = (token: string): PushMessage => ({ token, title: 't', body: 'b', platform: 'ios', options });
      // One stream: the second message is built after the first was answered, and the clock moved on.
      await provider({ now: () => (now += 1000), maxConcurrentStreams: 1 }).send([m('sec-1'), m('sec-2')]);
      const expiration = (token: string) => Number((emu.received({ token })[0].message as { apns: { headers: Record<string, string> } }).apns.headers['apns-expiration']);
      expect(expiration('sec-2')).toBeGreaterThan(expiration('sec-1'));
    });

    it('a dry run sends validate_only: FCM checks every message and delivers none', async () => {
      const results = await provider().send([push('dry-1'), push('unregistered-dry')], undefined, { validateOnly: true });
      expect(results).toEqual([{ status: 'sent', providerMessageId: 'projects/acme/messages/fake_message_id' }, expect.objectContaining({ status: 'invalid_token' })]);
      expect(emu.received()).toEqual([]);
      expect(emu.validated().map((m) => m.token)).toEqual(['dry-1']);
    });

    it('sends 1,000 concurrent sends over one connection with one token fetch', async () => {
      const p = provider();
      const results = await Promise.all(Array.from({ length: 1000 }, (_, i) => p.send([push(`device-${i}`)])));
      expect(results.flat().every((r) => r.status === 'sent')).toBe(true);
      expect(new Set(results.flat().map((r) => (r as { providerMessageId: string }).providerMessageId)).size).toBe(1000);
      expect(emu.stats()).toMatchObject({ tokenRequests: 1, accepted: 1000, connections: 2 }); // one HTTP/1.1 for the token, one h2c
    });

    it('keeps results aligned with a batch whose streams exceed the limit', async () => {
      const tokens = Array.from({ length: 300 }, (_, i) => (i % 3 === 0 ? `unregistered-${i}` : `ok-${i}`));
      const results = await provider({ maxConcurrentStreams: 7 }).send(tokens.map((t) => push(t)));
      results.forEach((r, i) => expect(r.status).toBe(i % 3 === 0 ? 'invalid_token' : 'sent'));
    });

    it('reports each result through onResult as soon as it is known, before the batch is done', async () => {
      const started = Date.now();
      const heard: { index: number; result: TokenResult; afterMs: number }[] = [];
      const results = await provider().send([push('slow400-a'), push('ok-b'), push('unregistered-c')], (index, result) => heard.push({ index, result, afterMs: Date.now() - started }));
      expect(heard.map((h) => h.index)).toEqual([1, 2, 0]);
      expect(heard.map((h) => [h.index, h.result])).toEqual(heard.map((h) => [h.index, results[h.index]]));
      // The quick ones were heard while the slow one was still being answered.
      expect(heard[1].afterMs).toBeLessThan(heard[2].afterMs);
      expect(heard[2].afterMs).toBeGreaterThanOrEqual(390);
    });

    it('adds the platform blocks an image needs', async () => {
      const p = provider();
      await p.send([
        push('android-1', { platform: 'android', imageUrl: 'https://img/a.png' }),
        push('ios-1', { platform: 'ios', imageUrl: 'https://img/a.png' }),
        push('web-1', { platform: 'web', imageUrl: 'https://img/a.png' }),
      ]);
      const sent = (token: string) => emu.received({ token })[0].message;
      expect(sent('android-1')).toEqual({ token: 'android-1', notification: { title: 'Hello', body: 'World', image: 'https://img/a.png' } });
      expect(sent('ios-1')).toMatchObject({ apns: { payload: { aps: { 'mutable-content': 1 } }, fcm_options: { image: 'https://img/a.png' } } });
      expect(sent('web-1')).toMatchObject({ webpush: { notification: { image: 'https://img/a.png' } } });
      expect(sent('web-1')).not.toHaveProperty('apns');
    });

    it('prepare() obtains the token and opens the session without sending, and the sends that follow use them', async () => {
      const p = provider();
      await p.prepare();
      expect(emu.stats()).toMatchObject({ tokenRequests: 1, connections: 2, sendRequests: 0 }); // one HTTP/1.1 for the token, one h2c
      await p.prepare(); // ready already: nothing more
      expect(await p.send([push('device-1'), push('device-2')])).toEqual([expect.objectContaining({ status: 'sent' }), expect.objectContaining({ status: 'sent' })]);
      expect(emu.stats()).toMatchObject({ tokenRequests: 1, connections: 2, accepted: 2 });
    });

    it('prepare() with credentials FCM refuses resolves, and the send reports the failure', async () => {
      const p = provider({}, { ...credentials, privateKey: keys().privateKey });
      await expect(p.prepare()).resolves.toBeUndefined();
      expect(await p.send([push('device-1')])).toEqual([expect.objectContaining({ status: 'auth_failed' })]);
      expect(emu.stats().accepted).toBe(0);
    });

    it('answers [] for no messages without fetching a token', async () => {
      expect(await provider().send([])).toEqual([]);
      expect(emu.stats().tokenRequests).toBe(0);
    });
  });

  describe('FCM errors map to results', () => {
    it.each<[string, TokenResult['status'], RegExp]>([
      ['unregistered-1', 'invalid_token', /^FCM 404 UNREGISTERED: Requested entity was not found\.$/],
      ['invalid-1', 'invalid_token', /^FCM 400 INVALID_ARGUMENT: The registration token is not a valid FCM registration token$/],
      ['mismatch-1', 'sender_mismatch', /^FCM 403 SENDER_ID_MISMATCH: SenderId mismatch$/],
      ['unavailable-1', 'retryable', /^FCM 503 UNAVAILABLE/],
      ['internal-1', 'retryable', /^FCM 500 INTERNAL/],
      ['thirdparty-1', 'failed', /^FCM 401 THIRD_PARTY_AUTH_ERROR/],
    ])('%s → %s', async (token, status, error) => {
      const [result] = await provider().send([push(token)]);
      // A 5xx leaves the message's fate unknown: ambiguous.
      expect(result).toEqual({ status, error: expect.stringMatching(error), ...(status === 'retryable' ? { retryAfterMs: undefined, ambiguous: true } : {}) });
    });

    it('429 → retryable after the Retry-After seconds (refused, so not ambiguous)', async () => {
      expect(await provider().send([push('ratelimit-1')])).toEqual([
        { status: 'retryable', error: expect.stringMatching(/^FCM 429 QUOTA_EXCEEDED/), retryAfterMs: 1000 },
      ]);
    });

    it('Retry-After as an HTTP-date is read against the injected clock', async () => {
      const now = Math.floor(Date.now() / 1000) * 1000;
      emu.setFault({ tokenPrefix: 'dated-', kind: 'unavailable', retryAfter: new Date(now + 30_000).toUTCString() });
      const [result] = await provider({ now: () => now }).send([push('dated-1')]);
      expect(result).toMatchObject({ status: 'retryable', retryAfterMs: 30_000 });
    });

    it('an invalid payload (not about the token) is failed, not invalid_token', async () => {
      const [result] = await provider().send([push('device-1', { data: { from: 'me' } })]);
      expect(result).toEqual({ status: 'failed', error: 'FCM 400 INVALID_ARGUMENT: Invalid data payload key: from' });
    });

    it('a burst of 503s is retryable until it passes (the caller retries)', async () => {
      const p = provider();
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await p.send([push('unavailable2-1')]))[0].status);
      expect(statuses).toEqual(['retryable', 'retryable', 'sent']);
    });

    it('a project down answers retryable for every message', async () => {
      emu.setFault({ project: 'acme', kind: 'unavailable' });
      const results = await provider().send([push('a'), push('b')]);
      expect(results.map((r) => r.status)).toEqual(['retryable', 'retryable']);
    });

    it('a project other than the service account’s is auth_failed (403 PERMISSION_DENIED)', async () => {
      const [result] = await provider({}, { ...credentials, projectId: 'not-acme' }).send([push('device-1')]);
      expect(result).toEqual({ status: 'auth_failed', error: expect.stringMatching(/^FCM 403 PERMISSION_DENIED/) });
    });

    it('a timeout is retryable, and the next send works', async () => {
      const p = provider({ requestTimeoutMs: 200 });
      expect(await p.send([push('slow1000-1')])).toEqual([{ status: 'retryable', error: 'FCM request timed out after 200 ms', ambiguous: true }]);
      expect((await p.send([push('device-1')]))[0].status).toBe('sent');
    });
  });

  describe('credentials', () => {
    it('a wrong private key is auth_failed, and never shows the key', async () => {
      const wrong = keys().privateKey;
      const p = provider({}, { ...credentials, privateKey: wrong });
      const results = await p.send([push('a'), push('b')]);
      expect(results).toEqual([
        { status: 'auth_failed', error: expect.stringContaining('invalid_grant: Invalid JWT Signature.') },
        { status: 'auth_failed', error: expect.stringContaining('invalid_grant: Invalid JWT Signature.') },
      ]);
      expect(emu.stats()).toMatchObject({ tokenRequests: 1, sendRequests: 0 });
      expect(JSON.stringify(results)).not.toContain(wrong.split('\n')[1]);
      expect(await p.verifyCredentials()).toEqual({ ok: false, error: results[0].status === 'auth_failed' ? results[0].error : '' });
    });

    it('a key that is not PEM is auth_failed without echoing it', async () => {
      // The armour of a real key around material that is not one.
      const lines = acme.privateKey.trim().split('\n');
      const garbage = [lines[0], 'c2VjcmV0LWtleS1tYXRlcmlhbA==', lines[lines.length - 1]].join('\n');
      const p = provider({}, { ...credentials, privateKey: garbage });
      expect(await p.verifyCredentials()).toEqual({ ok: false, error: 'The service-account private key is not a valid PEM private key' });
      expect(emu.stats().tokenRequests).toBe(0);
    });

    it('verifyCredentials obtains a token', async () => {
      expect(await provider().verifyCredentials()).toEqual({ ok: true });
      expect(emu.stats().tokensIssued).toBe(1);
    });

    it('revoked credentials are auth_failed at the token endpoint and at FCM', async () => {
      const warm = provider();
      await warm.send([push('device-1')]);
      emu.setFault({ project: 'acme', kind: 'revoked' });
      expect((await warm.send([push('device-1')]))[0]).toMatchObject({ status: 'auth_failed', error: expect.stringMatching(/^FCM 401 UNAUTHENTICATED/) });
      // The rejected token was dropped: the next send asks for a new one, which is refused.
      expect((await warm.send([push('device-1')]))[0]).toMatchObject({ status: 'auth_failed', error: expect.stringContaining('invalid_grant') });
      expect(await provider().verifyCredentials()).toMatchObject({ ok: false, error: expect.stringContaining('invalid_grant') });
    });

    it('a token endpoint outage is retryable for the whole batch', async () => {
      emu.setFault({ kind: 'token_unavailable', retryAfter: 3 });
      expect(await provider().send([push('a'), push('b')])).toEqual([
        { status: 'retryable', error: expect.stringContaining('OAuth token endpoint answered 503'), retryAfterMs: 3000 },
        { status: 'retryable', error: expect.stringContaining('OAuth token endpoint answered 503'), retryAfterMs: 3000 },
      ]);
    });

    it('an unreachable endpoint is retryable', async () => {
      const gone = await startFcmEmulator();
      const host = gone.host;
      await gone.close();
      const p = createFcmProvider(credentials, { emulatorHost: host });
      open.push(p);
      expect(await p.send([push('a')])).toEqual([{ status: 'retryable', error: expect.stringMatching(/^OAuth token request failed: connect ECONNREFUSED/) }]);
    });

    it('refreshes an access token near expiry exactly once under concurrency', async () => {
      let now = Date.now();
      const clock = () => now;
      const clocked = await startFcmEmulator({ serviceAccounts: [{ ...credentials, privateKey: acme.privateKey }], now: clock });
      const p = createFcmProvider(credentials, { emulatorHost: clocked.host, now: clock });
      open.push(p);
      try {
        await p.send([push('first')]);
        now += 54 * 60_000; // the token (3599 s) is still cached: 5 minutes of margin left
        await p.send([push('second')]);
        expect(clocked.stats().tokenRequests).toBe(1);

        now += 2 * 60_000; // inside the 5-minute margin
        const results = await Promise.all(Array.from({ length: 500 }, (_, i) => p.send([push(`device-${i}`)])));
        expect(results.flat().every((r) => r.status === 'sent')).toBe(true);
        expect(clocked.stats().tokenRequests).toBe(2);
      } finally {
        await clocked.close();
      }
    });

    it('keeps using a still-valid token while an early refresh fails for a transient reason', async () => {
      let now = Date.now();
      const clock = () => now;
      const clocked = await startFcmEmulator({ serviceAccounts: [{ ...credentials }], now: clock });
      const p = createFcmProvider(credentials, { emulatorHost: clocked.host, now: clock });
      open.push(p);
      try {
        await p.send([push('first')]);
        now += 56 * 60_000; // time to refresh, 3 minutes before expiry
        clocked.setFault({ kind: 'token_unavailable' });
        expect((await p.send([push('second')]))[0].status).toBe('sent');
        now += 4 * 60_000; // expired now
        expect((await p.send([push('third')]))[0]).toMatchObject({ status: 'retryable', error: expect.stringContaining('OAuth token endpoint answered 503') });
      } finally {
        await clocked.close();
      }
    });

    it('drops a token FCM calls expired and fetches a new one', async () => {
      let emulatorNow = Date.now();
      const clocked = await startFcmEmulator({ serviceAccounts: [{ ...credentials, privateKey: acme.privateKey }], now: () => emulatorNow, tokenExpiresInS: 600 });
      const p = createFcmProvider(credentials, { emulatorHost: clocked.host });
      open.push(p);
      try {
        expect((await p.send([push('a')]))[0].status).toBe('sent');
        emulatorNow += 601_000; // expired for the emulator, not yet for the client's clock
        expect((await p.send([push('a')]))[0]).toMatchObject({ status: 'auth_failed', error: expect.stringMatching(/^FCM 401 UNAUTHENTICATED/) });
        expect((await p.send([push('a')]))[0].status).toBe('sent');
        expect(clocked.stats().tokensIssued).toBe(2);
      } finally {
        await clocked.close();
      }
    });

    it('logs without key material or access tokens', async () => {
      const lines: unknown[] = [];
      const logger: FcmLogger = { debug: (o, m) => lines.push([o, m]), info: (o, m) => lines.push([o, m]), warn: (o, m) => lines.push([o, m]) };
      const p = provider({ logger });
      await p.send([push('a')]);
      emu.disconnect('destroy');
      await p.send([push('a')]);
      await provider({ logger }, { ...credentials, privateKey: keys().privateKey }).send([push('a')]);
      const text = JSON.stringify(lines);
      expect(lines.length).toBeGreaterThan(0);
      expect(text).not.toContain('PRIVATE KEY');
      expect(text).not.toContain(acme.privateKey.split('\n')[1]);
      expect(text).not.toContain('ya29.');
    });
  });

  describe('connection loss', () => {
    it('recovers from a GOAWAY: in-flight streams finish, the next send opens a new session', async () => {
      const p = provider();
      await p.send([push('warm')]);
      const inFlight = p.send(Array.from({ length: 20 }, (_, i) => push(`slow200-${i}`)));
      await new Promise((r) => setTimeout(r, 50));
      emu.disconnect('goaway');
      expect((await inFlight).every((r) => r.status === 'sent')).toBe(true);
      expect((await p.send([push('after')]))[0].status).toBe('sent');
      expect(emu.stats().connections).toBe(3); // token, first session, second session
    });

    it('recovers from a killed connection: in-flight sends are retryable, the next send works', async () => {
      const p = provider();
      await p.send([push('warm')]);
      const inFlight = p.send([push('slow300-1'), push('slow300-2')]);
      await new Promise((r) => setTimeout(r, 50));
      emu.disconnect('destroy');
      expect(await inFlight).toEqual([
        { status: 'retryable', error: expect.stringMatching(/^FCM connection lost/), ambiguous: true },
        { status: 'retryable', error: expect.stringMatching(/^FCM connection lost/), ambiguous: true },
      ]);
      expect((await p.send([push('after')]))[0].status).toBe('sent');
      emu.disconnect('destroy');
      expect((await p.send([push('after-2')]))[0].status).toBe('sent');
    });

    it('close() lets queued sends finish, then refuses new ones', async () => {
      const p = provider({ maxConcurrentStreams: 2 });
      const pending = p.send(Array.from({ length: 10 }, (_, i) => push(`slow20-${i}`)));
      await new Promise((r) => setTimeout(r, 10));
      await p.close();
      expect((await pending).every((r) => r.status === 'sent')).toBe(true);
      expect(await p.send([push('late')])).toEqual([{ status: 'retryable', error: 'FCM client is closed' }]);
    });
  });

  it('is the client the provider registry builds for type fcm', async () => {
    const p = createPushProvider('fcm', { ...credentials }, { emulatorHost: emu.host });
    open.push(p as FcmProvider);
    expect((await p.send([push('via-registry')]))[0].status).toBe('sent');
  });

  describe('ProviderPool', () => {
    it('reuses one client per configuration version and replaces it on update', async () => {
      const pool = new ProviderPool({ emulatorHost: emu.host });
      const updatedAt = new Date('2025-01-01T00:00:00Z');
      const a = pool.get({ id: 'p1', provider: 'fcm', updatedAt, credentials: { ...credentials } });
      expect(pool.get({ id: 'p1', provider: 'fcm', updatedAt: updatedAt.toISOString(), credentials: { ...credentials } })).toBe(a);
      await a.send([push('x')]);
      const b = pool.get({ id: 'p1', provider: 'fcm', updatedAt: new Date('2025-01-02T00:00:00Z'), credentials: { ...credentials } });
      expect(b).not.toBe(a);
      expect(await a.send([push('y')])).toEqual([{ status: 'retryable', error: 'FCM client is closed' }]);
      expect((await b.send([push('y')]))[0].status).toBe('sent');
      const c = pool.get({ id: 'p2', provider: 'fcm', updatedAt, credentials: { ...credentials } });
      await pool.close();
      expect(await c.send([push('z')])).toEqual([{ status: 'retryable', error: 'FCM client is closed' }]);
    });
  });
});
