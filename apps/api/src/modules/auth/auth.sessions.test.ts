import jwt from 'jsonwebtoken';
import { createApiKey, createProject, expectError, PASSWORD, startApi, tokenFromMail, type Harness } from '@herald/testing';

/**
 * Hardening: an access token kept working for up to 15 minutes after logout, password change or
 * reset. A token now names its session (the refresh-token family it was issued with); ending the
 * session refuses the token at the very next request, on every instance.
 */
let h: Harness;
let other: Harness;
beforeAll(async () => {
  h = await startApi();
  other = await startApi(); // a second API instance on the same database and Redis
});
afterAll(async () => {
  await h.close();
  await other.close();
});

const me = (api: Harness, token: string) => api.get('/auth/me', { token });

it('logout ends that session’s access token at once, on every instance; the user’s other sessions go on', async () => {
  const u = await h.user();
  const second = await h.signin(u.email);
  expect((await me(h, u.accessToken)).status).toBe(200);
  expect((await me(other, u.accessToken)).status).toBe(200);

  expect((await h.post('/auth/logout', { body: { refreshToken: u.refreshToken } })).status).toBe(200);
  expectError(await me(h, u.accessToken), 401, 'Invalid token');
  expectError(await me(other, u.accessToken), 401, 'Invalid token');
  expectError(await h.post('/auth/refresh', { body: { refreshToken: u.refreshToken } }), 401);
  expect((await me(other, second.accessToken)).status).toBe(200);
  // A session refreshed before its logout: the newer access token ends with it too.
  const refreshed = await h.post('/auth/refresh', { body: { refreshToken: second.refreshToken } });
  expect((await me(h, refreshed.body.accessToken)).status).toBe(200);
  await h.post('/auth/logout', { body: { refreshToken: refreshed.body.refreshToken } });
  expectError(await me(h, second.accessToken), 401, 'Invalid token');
  expectError(await me(h, refreshed.body.accessToken), 401, 'Invalid token');
});

it('a password change ends every other session at once; the session that changed it is not signed out', async () => {
  const u = await h.user();
  const elsewhere = await h.signin(u.email); // e.g. a stolen session
  const changed = await h.post('/auth/change-password', { token: u.accessToken, body: { currentPassword: PASSWORD, newPassword: 'a brand new password' } });
  expect(changed.status).toBe(200);
  expectError(await me(h, elsewhere.accessToken), 401, 'Invalid token');
  expectError(await me(other, elsewhere.accessToken), 401, 'Invalid token');
  // The caller's access token lives out its lifetime; its refresh token is revoked with the others.
  expect((await me(other, u.accessToken)).status).toBe(200);
  expectError(await h.post('/auth/refresh', { body: { refreshToken: u.refreshToken } }), 401);
  expect((await me(h, (await h.signin(u.email, 'a brand new password')).accessToken)).status).toBe(200);
});

it('a password reset ends every session', async () => {
  const u = await h.user();
  const elsewhere = await h.signin(u.email);
  expect((await h.post('/auth/request-password-reset', { body: { email: u.email } })).status).toBe(200);
  const token = tokenFromMail(await h.smtp.waitFor(u.email, /Reset/), `${h.config.appUrl}/reset-password`);
  expect((await h.post('/auth/reset-password', { body: { token, newPassword: 'reset to something new' } })).status).toBe(200);
  expectError(await me(h, u.accessToken), 401, 'Invalid token');
  expectError(await me(other, elsewhere.accessToken), 401, 'Invalid token');
  expect((await me(h, (await h.signin(u.email, 'reset to something new')).accessToken)).status).toBe(200);
});

it('a reused refresh token (a stolen one) ends its session’s access tokens too', async () => {
  const u = await h.user();
  const first = await h.post('/auth/refresh', { body: { refreshToken: u.refreshToken } });
  expect((await me(h, first.body.accessToken)).status).toBe(200);
  expectError(await h.post('/auth/refresh', { body: { refreshToken: u.refreshToken } }), 401); // reuse
  expectError(await me(h, first.body.accessToken), 401, 'Invalid token');
  expectError(await me(h, u.accessToken), 401, 'Invalid token');
});

it('a token without a session (issued before sessions were named) still works; a malformed session is refused', async () => {
  const u = await h.user();
  const sign = (claims: object) => jwt.sign({ typ: 'access', ...claims }, h.config.jwt.secret, { algorithm: 'HS256', subject: u.id, expiresIn: 60 });
  expect((await me(h, sign({}))).status).toBe(200);
  expectError(await me(h, sign({ sid: 'not-a-uuid' })), 401, 'Invalid token');
  expectError(await me(h, sign({ sid: 42 })), 401, 'Invalid token');
});

it('API keys are not affected: a project keeps working after its owner logs out', async () => {
  const u = await h.user();
  const project = await createProject(h, u);
  const key = await createApiKey(h, project.id);
  await h.post('/auth/logout', { body: { refreshToken: u.refreshToken } });
  expect((await h.get(`/projects/${project.id}`, { apiKey: key.key })).status).toBe(200);
});
