import { createApiKey, expectError, httpRequest, PASSWORD, spawnApi, startApi, tenant, unique, uniqueEmail, type ApiResponse, type Harness } from '@herald/testing';

/** The rate limits of docs/api.md#rate-limits, at their defaults, on an API with its own Redis key prefix. */
let h: Harness;
beforeAll(async () => {
  h = await startApi({
    QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-${unique('rl')}`,
    RATE_LIMIT_AUTH: '10',
    RATE_LIMIT_SIGNUP: '30',
    RATE_LIMIT_SEND: '100',
    RATE_LIMIT_SEND_BULK: '10',
  });
});
afterAll(() => h.close());

function expect429(res: ApiResponse, limit: number) {
  expectError(res, 429);
  expect(res.body.error).toBe('Too Many Requests');
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(res.headers.get('ratelimit-policy')).toMatch(new RegExp(`q=${limit}`));
  expect(res.headers.get('ratelimit')).toMatch(/r=0/);
}

it('sign-in: 10 per minute per IP and e-mail, whether or not the password is right', async () => {
  const u = await h.signup();
  for (let i = 0; i < 10; i++) expect((await h.post('/auth/signin', { body: { email: u.email, password: i % 2 ? PASSWORD : 'wrong password' } })).status).not.toBe(429);
  expect429(await h.post('/auth/signin', { body: { email: u.email, password: PASSWORD } }), 10);
  // the same address in another case is the same account
  expect429(await h.post('/auth/signin', { body: { email: u.email.toUpperCase(), password: PASSWORD } }), 10);
  // another account from the same IP is not blocked
  const other = await h.signup();
  expect((await h.post('/auth/signin', { body: { email: other.email, password: PASSWORD } })).status).toBe(200);
});

it('password reset requests: 10 per minute per IP and e-mail', async () => {
  const email = uniqueEmail('reset');
  for (let i = 0; i < 10; i++) expect((await h.post('/auth/request-password-reset', { body: { email } })).status).toBe(200);
  expect429(await h.post('/auth/request-password-reset', { body: { email } }), 10);
});

it('send-bulk: 10 per minute per credential; send: 100', async () => {
  const t = await tenant(h);
  const key = (await createApiKey(h, t.project.id)).key;
  const bulk = { userIds: ['u1'], templateId: '00000000-0000-4000-8000-000000000000' };
  for (let i = 0; i < 10; i++) expect((await h.post('/push/send-bulk', { apiKey: key, body: bulk })).status).not.toBe(429);
  expect429(await h.post('/push/send-bulk', { apiKey: key, body: bulk }), 10);
  // the user behind a JWT has a budget of their own
  expect((await h.post('/push/send-bulk', { token: t.owner.accessToken, query: { projectId: t.project.id }, body: bulk })).status).not.toBe(429);

  const send = { userId: 'u1', templateId: '00000000-0000-4000-8000-000000000000' };
  for (let i = 0; i < 100; i++) expect((await h.post('/push/send', { apiKey: key, body: send })).status).not.toBe(429);
  expect429(await h.post('/push/send', { apiKey: key, body: send }), 100);
});

it('a key this instance already knows is counted as it is checked, and a disabled one is still a 401, not a 429', async () => {
  const t = await tenant(h);
  const key = await createApiKey(h, t.project.id);
  const other = (await createApiKey(h, t.project.id)).key;
  const bulk = { userIds: ['u1'], templateId: '00000000-0000-4000-8000-000000000000' };
  // The first request looks the key up; the next ones start the limiter together with the check.
  for (let i = 0; i < 10; i++) expect((await h.post('/push/send-bulk', { apiKey: key.key, body: bulk })).status).not.toBe(429);
  expect429(await h.post('/push/send-bulk', { apiKey: key.key, body: bulk }), 10);
  // Another key of the same project has its own budget.
  expect((await h.post('/push/send-bulk', { apiKey: other, body: bulk })).status).not.toBe(429);

  const disabled = await h.patch(`/projects/${t.project.id}/api-keys/${key.id}`, { token: t.owner.accessToken, body: { enabled: false } });
  expect(disabled.status).toBe(200);
  const res = await h.post('/push/send-bulk', { apiKey: key.key, body: bulk });
  expectError(res, 401);
  expect(res.body.message).toBe('API key is disabled');
});

it('sign-up: 30 per minute per IP, counting refused attempts too', async () => {
  const own = await startApi({ QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-${unique('su')}`, RATE_LIMIT_SIGNUP: '30' });
  try {
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push((await own.post('/auth/signup', { body: { email: uniqueEmail('su'), password: 'short' } })).status);
    expect(statuses.every((s) => s === 400)).toBe(true);
    expect429(await own.post('/auth/signup', { body: { email: uniqueEmail('su'), password: PASSWORD, firstName: 'A', lastName: 'B' } }), 30);
  } finally {
    await own.close();
  }
});

it('a refusal decided while the project is still being reloaded leaves the process running (built API, own process)', async () => {
  // The in-process harness cannot show this: an unhandled rejection ends a real Node process.
  const api = await spawnApi({ QUEUE_PREFIX: h.config.queuePrefix, RATE_LIMIT_SEND_BULK: '2' });
  try {
    const t = await tenant(h);
    const key = await createApiKey(h, t.project.id);
    const bulk = { userIds: ['u1'], templateId: '00000000-0000-4000-8000-000000000000' };
    const post = (apiKey: string) => httpRequest(api.url, 'POST', '/push/send-bulk', { apiKey, body: bulk });
    for (let i = 0; i < 2; i++) expect((await post(key.key)).status).not.toBe(429);
    expect((await post(key.key)).status).toBe(429);
    // Any change to the project makes the next request reload it from Postgres, while the limiter
    // (whose command left with the version read) has already refused.
    expect((await h.post('/push-templates', { token: t.owner.accessToken, body: { projectId: t.project.id, name: unique('tpl'), title: 'T', body: 'B' } })).status).toBe(201);
    expect((await post(key.key)).status).toBe(429);
    await h.patch(`/projects/${t.project.id}/api-keys/${key.id}`, { token: t.owner.accessToken, body: { enabled: false } });
    const res = await post(key.key);
    expect(res.status).toBe(401);
    expect(res.body.message).toBe('API key is disabled');
    expect((await httpRequest(api.url, 'GET', '/health')).status).toBe(200);
    expect(api.child.exitCode).toBeNull();
  } finally {
    await api.stop();
  }
});
