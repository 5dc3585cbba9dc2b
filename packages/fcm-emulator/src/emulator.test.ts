import { generateKeyPairSync, sign } from 'node:crypto';
import http2 from 'node:http2';
import { GOOGLE_TOKEN_URL, JWT_BEARER_GRANT, startFcmEmulator, type FcmEmulator } from './index';

const keys = () =>
  generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });

const alice = { projectId: 'proj-a', clientEmail: 'sender@proj-a.iam.gserviceaccount.com', ...keys() };
const mallory = keys();

function assertion(privateKey: string, claims: Record<string, unknown> = {}, nowMs = Date.now()): string {
  const iat = Math.floor(nowMs / 1000);
  const enc = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const input = `${enc({ alg: 'RS256', typ: 'JWT' })}.${enc({
    iss: alice.clientEmail,
    scope: 'https://www.googleapis.com/auth/firebase.messaging',
    aud: GOOGLE_TOKEN_URL,
    iat,
    exp: iat + 3600,
    ...claims,
  })}`;
  return `${input}.${sign('RSA-SHA256', Buffer.from(input), privateKey).toString('base64url')}`;
}

/** HTTP/1.1 (fetch is undici, which speaks HTTP/1.1 to a cleartext origin). */
async function tokenRequest(emu: FcmEmulator, jwt: string, grantType = JWT_BEARER_GRANT) {
  const res = await fetch(`${emu.url}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: grantType, assertion: jwt }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function send(emu: FcmEmulator, accessToken: string, message: unknown, project = alice.projectId) {
  const res = await fetch(`${emu.url}/v1/projects/${project}/messages:send`, {
    method: 'POST',
    headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ message }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

/** h2c with prior knowledge, as Herald's client talks to it. */
function h2Send(emu: FcmEmulator, accessToken: string, message: unknown): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(emu.url);
    session.on('error', reject);
    const stream = session.request({
      ':method': 'POST',
      ':path': `/v1/projects/${alice.projectId}/messages:send`,
      authorization: `Bearer ${accessToken}`,
      'content-type': 'application/json',
    });
    let status = 0;
    let body = '';
    stream.on('response', (h) => (status = Number(h[':status'])));
    stream.setEncoding('utf8');
    stream.on('data', (c: string) => (body += c));
    stream.on('end', () => {
      session.close();
      resolve({ status, body: JSON.parse(body) });
    });
    stream.end(JSON.stringify({ message }));
  });
}

describe('FCM emulator', () => {
  let emu: FcmEmulator;
  let accessToken: string;

  beforeAll(async () => {
    emu = await startFcmEmulator({ serviceAccounts: [alice] });
    accessToken = String((await tokenRequest(emu, assertion(alice.privateKey))).body.access_token);
  });
  afterAll(() => emu.close());
  beforeEach(() => emu.reset());

  describe('token endpoint', () => {
    it('grants a token for an assertion signed by a known service account', async () => {
      const res = await tokenRequest(emu, assertion(alice.privateKey));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ access_token: expect.stringMatching(/^ya29\./), expires_in: 3599, token_type: 'Bearer' });
      expect(emu.stats()).toMatchObject({ tokenRequests: 1, tokensIssued: 1 });
    });

    it('accepts its own /token URL as the audience', async () => {
      expect((await tokenRequest(emu, assertion(alice.privateKey, { aud: `${emu.url}/token` }))).status).toBe(200);
    });

    it('rejects a forged assertion (signed with another key)', async () => {
      const res = await tokenRequest(emu, assertion(mallory.privateKey));
      expect(res).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' } });
      expect(emu.stats().tokensIssued).toBe(0);
    });

    it('rejects a tampered claim set', async () => {
      const [h, , s] = assertion(alice.privateKey).split('.');
      const claims = Buffer.from(JSON.stringify({ iss: alice.clientEmail, scope: 'x', aud: GOOGLE_TOKEN_URL, iat: 1, exp: 2 })).toString('base64url');
      expect((await tokenRequest(emu, `${h}.${claims}.${s}`)).body.error).toBe('invalid_grant');
    });

    it.each([
      ['an unknown service account', { iss: 'nobody@x.iam.gserviceaccount.com' }, 'invalid_grant'],
      ['a wrong audience', { aud: 'https://example.com/token' }, 'invalid_grant'],
      ['an expired assertion', { iat: 1_000, exp: 4_600 }, 'invalid_grant'],
      ['a lifetime over an hour', { exp: Math.floor(Date.now() / 1000) + 7200 }, 'invalid_grant'],
      ['another scope', { scope: 'https://www.googleapis.com/auth/userinfo.email' }, 'invalid_scope'],
    ])('rejects %s', async (_, claims, error) => {
      const res = await tokenRequest(emu, assertion(alice.privateKey, claims));
      expect(res.status).toBe(400);
      expect(res.body.error).toBe(error);
    });

    it('rejects other grant types and garbage assertions', async () => {
      expect((await tokenRequest(emu, assertion(alice.privateKey), 'client_credentials')).body.error).toBe('unsupported_grant_type');
      expect((await tokenRequest(emu, 'not.a.jwt')).body.error).toBe('invalid_grant');
    });

    it('answers invalid_grant once the project credentials are revoked', async () => {
      emu.setFault({ kind: 'revoked', project: alice.projectId });
      expect((await tokenRequest(emu, assertion(alice.privateKey))).body.error).toBe('invalid_grant');
    });

    it('in open mode, grants any well-formed assertion, valid for any project', async () => {
      const open = await startFcmEmulator({ open: true });
      try {
        const grant = await tokenRequest(open, assertion(mallory.privateKey, { iss: 'dev@anything.iam.gserviceaccount.com' }));
        expect(grant.status).toBe(200);
        const res = await send(open, String(grant.body.access_token), { token: 'tok', notification: { title: 't', body: 'b' } }, 'any-project');
        expect(res.body).toEqual({ name: 'projects/any-project/messages/1' });
      } finally {
        await open.close();
      }
    });
  });

  describe('messages:send', () => {
    const message = { token: 'device-1', notification: { title: 'Hi', body: 'there' }, data: { a: '1' } };

    it('accepts a message over HTTP/1.1 and records it', async () => {
      const res = await send(emu, accessToken, message);
      expect(res.status).toBe(200);
      expect(res.body.name).toMatch(/^projects\/proj-a\/messages\/\d+$/);
      expect(emu.received()).toEqual([
        {
          name: res.body.name,
          project: alice.projectId,
          token: 'device-1',
          topic: undefined,
          condition: undefined,
          clientEmail: alice.clientEmail,
          message,
          receivedAt: expect.any(Number),
        },
      ]);
    });

    it('accepts a message over h2c', async () => {
      const res = await h2Send(emu, accessToken, message);
      expect(res.status).toBe(200);
      expect(emu.received({ token: 'device-1' })).toHaveLength(1);
    });

    it('serves the record over HTTP, filtered, and clears it', async () => {
      await send(emu, accessToken, message);
      await send(emu, accessToken, { ...message, token: 'device-2' });
      const all = (await (await fetch(`${emu.url}/_emulator/messages`)).json()) as { messages: unknown[] };
      expect(all.messages).toHaveLength(2);
      const one = (await (await fetch(`${emu.url}/_emulator/messages?token=device-2&project=proj-a`)).json()) as { messages: Array<{ token: string }> };
      expect(one.messages.map((m) => m.token)).toEqual(['device-2']);
      expect((await fetch(`${emu.url}/_emulator/messages`, { method: 'DELETE' })).status).toBe(204);
      expect(emu.received()).toEqual([]);
    });

    it('answers validate_only as FCM does, keeping the message apart from delivered ones', async () => {
      const res = await fetch(`${emu.url}/v1/projects/${alice.projectId}/messages:send`, {
        method: 'POST',
        headers: { authorization: `Bearer ${accessToken}` },
        body: JSON.stringify({ message, validate_only: true }),
      });
      expect(await res.json()).toEqual({ name: 'projects/proj-a/messages/fake_message_id' });
      expect(emu.received()).toEqual([]);
      expect(emu.validated()).toEqual([expect.objectContaining({ token: 'device-1', message, name: 'projects/proj-a/messages/fake_message_id' })]);
      const over = (await (await fetch(`${emu.url}/_emulator/validated?token=device-1`)).json()) as { messages: unknown[] };
      expect(over.messages).toHaveLength(1);
      expect(emu.stats()).toMatchObject({ accepted: 0, validated: 1 });
      // A dry run is checked like a send: a dead token or a bad field fails it.
      const dead = await fetch(`${emu.url}/v1/projects/${alice.projectId}/messages:send`, {
        method: 'POST',
        headers: { authorization: `Bearer ${accessToken}` },
        body: JSON.stringify({ message: { ...message, token: 'unregistered-1' }, validate_only: true }),
      });
      expect(dead.status).toBe(404);
      expect((await fetch(`${emu.url}/_emulator/validated`, { method: 'DELETE' })).status).toBe(204);
      expect(emu.validated()).toEqual([]);
    });

    it('accepts every documented platform field, in snake_case or lowerCamelCase, and records it as sent', async () => {
      const full = {
        token: 'device-p',
        notification: { title: 'Hi', body: 'there' },
        android: {
          priority: 'high',
          ttl: '3600s',
          collapse_key: 'score',
          notification: { channel_id: 'news', sound: 'default', tag: 't', click_action: 'OPEN', color: '#00ff00', icon: 'ic_stat' },
        },
        apns: {
          headers: { 'apns-priority': '10', 'apns-expiration': '1800000000', 'apns-collapse-id': 'score', 'apns-push-type': 'alert' },
          payload: { aps: { sound: 'default', badge: 2, category: 'NEW', 'thread-id': 'th', 'content-available': 1, 'mutable-content': 1 } },
          fcm_options: { image: 'https://cdn.example.com/a.png' },
        },
        webpush: { headers: { Urgency: 'high', TTL: '3600', Topic: 'score' }, notification: { image: 'https://cdn.example.com/a.png' }, fcm_options: { link: 'https://app.example.com/' } },
      };
      expect((await send(emu, accessToken, full)).status).toBe(200);
      expect(emu.received({ token: 'device-p' })[0].message).toEqual(full);
      const camel = { token: 'device-c', android: { collapseKey: 'k', priority: 'NORMAL', notification: { channelId: 'c', clickAction: 'A' } } };
      expect((await send(emu, accessToken, camel)).status).toBe(200);
    });

    it.each([
      ['an unknown android field', { android: { urgency: 'high' } }, /Unknown name "urgency" at 'message.android'/],
      ['an unknown android.notification field', { android: { notification: { channel: 'x' } } }, /Unknown name "channel" at 'message.android.notification'/],
      ['an android priority of another kind', { android: { priority: 'urgent' } }, /message.android.priority/],
      ['a ttl that is not a Duration', { android: { ttl: 3600 } }, /google.protobuf.Duration/],
      ['a ttl over 4 weeks', { android: { ttl: '2419201s' } }, /at most 2419200 seconds/],
      ['a colour that is not #rrggbb', { android: { notification: { color: 'red' } } }, /#rrggbb/],
      ['an apns-priority APNs does not know', { apns: { headers: { 'apns-priority': '7' } } }, /Invalid APNs header apns-priority/],
      ['a background push with priority 10', { apns: { headers: { 'apns-priority': '10', 'apns-push-type': 'background' }, payload: { aps: { 'content-available': 1 } } } }, /apns-priority 5/],
      ['a badge that is not a number', { apns: { payload: { aps: { badge: 'two' } } } }, /aps.badge/],
      ['a web link over http', { webpush: { fcm_options: { link: 'http://app.example.com/' } } }, /HTTPS is required/],
      ['a Web Push Urgency it does not know', { webpush: { headers: { Urgency: 'now' } } }, /Invalid Web Push header Urgency/],
      ['a Web Push Topic over 32 characters', { webpush: { headers: { Topic: 'x'.repeat(33) } } }, /Invalid Web Push header Topic/],
    ])('rejects %s with INVALID_ARGUMENT', async (_, block, text) => {
      const res = await send(emu, accessToken, { token: 't', notification: { title: 'x', body: 'y' }, ...block });
      expect(res.status).toBe(400);
      expect(res.body.error.status).toBe('INVALID_ARGUMENT');
      expect(res.body.error.message).toMatch(text);
      expect(emu.received()).toEqual([]);
    });

    it('trusts service accounts added over HTTP and reports its counters', async () => {
      const bob = keys();
      const account = { project_id: 'proj-b', client_email: 'bob@proj-b.iam.gserviceaccount.com', private_key: bob.privateKey };
      expect((await fetch(`${emu.url}/_emulator/service-accounts`, { method: 'POST', body: JSON.stringify(account) })).status).toBe(201);
      const grant = await tokenRequest(emu, assertion(bob.privateKey, { iss: account.client_email }));
      expect((await send(emu, String(grant.body.access_token), message, 'proj-b')).status).toBe(200);
      const stats = await (await fetch(`${emu.url}/_emulator/stats`)).json();
      expect(stats).toMatchObject({ tokenRequests: 1, tokensIssued: 1, sendRequests: 1, accepted: 1, rejected: 0 });
    });

    it('requires a token it issued, for the project of its service account', async () => {
      expect((await send(emu, 'ya29.made-up', message)).body.error.status).toBe('UNAUTHENTICATED');
      const res = await send(emu, accessToken, message, 'someone-elses-project');
      expect(res.status).toBe(403);
      expect(res.body.error.status).toBe('PERMISSION_DENIED');
    });

    it('refuses an expired access token', async () => {
      let now = Date.now();
      const clocked = await startFcmEmulator({ serviceAccounts: [alice], now: () => now, tokenExpiresInS: 60 });
      try {
        const grant = await tokenRequest(clocked, assertion(alice.privateKey, {}, now));
        expect(grant.body.expires_in).toBe(60);
        expect((await send(clocked, String(grant.body.access_token), message)).status).toBe(200);
        now += 61_000;
        const res = await send(clocked, String(grant.body.access_token), message);
        expect(res.status).toBe(401);
        expect(res.body.error.details[0].reason).toBe('ACCESS_TOKEN_EXPIRED');
      } finally {
        await clocked.close();
      }
    });

    it.each([
      ['a missing target', { notification: { title: 'x', body: 'y' } }, 'Recipient of the message is not set.'],
      ['a non-string data value', { token: 't', data: { n: 1 } }, "Invalid value at 'message.data[0].value' (TYPE_STRING), 1"],
      ['a reserved data key', { token: 't', data: { from: 'me' } }, 'Invalid data payload key: from'],
      ['an unknown field', { token: 't', imageUrl: 'https://x' }, 'Invalid JSON payload received. Unknown name "imageUrl" at \'message\': Cannot find field.'],
    ])('rejects %s with INVALID_ARGUMENT', async (_, bad, text) => {
      const res = await send(emu, accessToken, bad);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT', message: text });
      expect(emu.received()).toEqual([]);
    });
  });

  describe('faults', () => {
    const to = (token: string) => ({ token, notification: { title: 't', body: 'b' } });
    const fcmErrorCode = (body: any) => body.error.details?.[0]?.errorCode;

    it.each([
      ['unregistered-x', 404, 'UNREGISTERED'],
      ['invalid-x', 400, 'INVALID_ARGUMENT'],
      ['mismatch-x', 403, 'SENDER_ID_MISMATCH'],
      ['unavailable-x', 503, 'UNAVAILABLE'],
      ['ratelimit-x', 429, 'QUOTA_EXCEEDED'],
      ['internal-x', 500, 'INTERNAL'],
      ['thirdparty-x', 401, 'THIRD_PARTY_AUTH_ERROR'],
    ])('token %s answers %i %s', async (token, status, errorCode) => {
      const res = await send(emu, accessToken, to(token));
      expect(res.status).toBe(status);
      expect(fcmErrorCode(res.body)).toBe(errorCode);
    });

    it('sends Retry-After with 429', async () => {
      expect((await send(emu, accessToken, to('ratelimit-y'))).headers.get('retry-after')).toBe('1');
    });

    it('fails a numbered prefix N times per token, then accepts', async () => {
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await send(emu, accessToken, to('unavailable2-a'))).status);
      statuses.push((await send(emu, accessToken, to('unavailable2-b'))).status);
      expect(statuses).toEqual([503, 503, 200, 503]);
    });

    it('delays slow tokens, then accepts them', async () => {
      const started = Date.now();
      expect((await send(emu, accessToken, to('slow150-x'))).status).toBe(200);
      expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    });

    it('takes programmed faults in-process and over HTTP', async () => {
      emu.setFault({ tokenPrefix: 'burst-', kind: 'ratelimit', times: 1, retryAfter: 7 });
      const first = await send(emu, accessToken, to('burst-1'));
      expect([first.status, first.headers.get('retry-after')]).toEqual([429, '7']);
      expect((await send(emu, accessToken, to('burst-1'))).status).toBe(200);

      const res = await fetch(`${emu.url}/_emulator/faults`, { method: 'POST', body: JSON.stringify({ project: alice.projectId, kind: 'unavailable' }) });
      expect(res.status).toBe(201);
      expect((await send(emu, accessToken, to('any'))).status).toBe(503);
      expect((await fetch(`${emu.url}/_emulator/faults`, { method: 'POST', body: JSON.stringify({ kind: 'nope' }) })).status).toBe(400);
      await fetch(`${emu.url}/_emulator/faults`, { method: 'DELETE' });
      expect((await send(emu, accessToken, to('any'))).status).toBe(200);
    });

    it('answers 401 to sends of a revoked project', async () => {
      emu.setFault({ kind: 'revoked', project: alice.projectId });
      const res = await send(emu, accessToken, to('x'));
      expect([res.status, res.body.error.status]).toEqual([401, 'UNAUTHENTICATED']);
    });
  });
});
