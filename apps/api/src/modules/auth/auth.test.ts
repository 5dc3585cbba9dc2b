import { requestReset } from './test-helpers/reset-steps';
import { expectError, PASSWORD, startApi, uniqueEmail, type Harness } from '@herald/testing';

/**
 * Accounts and sessions: what the endpoints do when used as intended. Refusals are in
 * auth.errors.test.ts, credentials, roles and tenancy in auth.security.test.ts.
 */

let h: Harness;
beforeAll(async () => {
  h = await startApi();
});
afterAll(() => h.close());

describe('signup', () => {
  it('creates a project_admin account and never returns the password', async () => {
    const email = uniqueEmail('Signup').toUpperCase();
    const res = await h.post('/auth/signup', { body: { email, password: PASSWORD, firstName: 'Grace', lastName: 'Hopper' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      email: email.toLowerCase(),
      firstName: 'Grace',
      lastName: 'Hopper',
      role: 'project_admin',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
    });
    expect(res.text).not.toContain(PASSWORD);
    const row = await h.db.user.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(row.passwordHash).toMatch(/^\$2[aby]\$/);
  });

  it('takes a password longer than bcrypt reads (72 bytes), and every character of it counts', async () => {
    const email = uniqueEmail();
    const long = `${'ä'.repeat(40)}-the-end`; // 88 bytes
    expect((await h.post('/auth/signup', { body: { email, password: long, firstName: 'A', lastName: 'B' } })).status).toBe(201);
    expect((await h.post('/auth/signin', { body: { email, password: long } })).status).toBe(200);
    // Equal in the first 72 bytes: bcrypt alone would take it.
    expectError(await h.post('/auth/signin', { body: { email, password: `${'ä'.repeat(40)}-another` } }), 401, 'Invalid email or password');
    expectError(await h.post('/auth/signup', { body: { email: uniqueEmail(), password: 'x'.repeat(1025), firstName: 'A', lastName: 'B' } }), 400, /at most 1024 characters/);
  });
});

describe('signin', () => {
  it('returns tokens that authenticate /auth/me', async () => {
    const u = await h.signup();
    const res = await h.post('/auth/signin', { body: { email: u.email, password: PASSWORD } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ accessToken: expect.any(String), refreshToken: expect.any(String), expiresIn: 900, tokenType: 'Bearer' });
    const me = await h.get('/auth/me', { token: res.body.accessToken });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ id: u.id, email: u.email, firstName: 'Ada', lastName: 'Lovelace', role: 'project_admin', createdAt: expect.any(String) });
  });
});

describe('refresh', () => {
  it('rotates: the new pair works and the old refresh token is spent', async () => {
    const u = await h.user();
    const first = await h.post('/auth/refresh', { body: { refreshToken: u.refreshToken } });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ accessToken: expect.any(String), refreshToken: expect.any(String), expiresIn: 900, tokenType: 'Bearer' });
    expect(first.body.refreshToken).not.toBe(u.refreshToken);
    // A new access token, also within the second of the sign-in.
    expect(first.body.accessToken).not.toBe(u.accessToken);
    expect((await h.get('/auth/me', { token: first.body.accessToken })).status).toBe(200);
    const second = await h.post('/auth/refresh', { body: { refreshToken: first.body.refreshToken } });
    expect(second.status).toBe(200);
  });

  it('logout revokes the session', async () => {
    const u = await h.user();
    const res = await h.post('/auth/logout', { body: { refreshToken: u.refreshToken } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: expect.any(String) });
    expectError(await h.post('/auth/refresh', { body: { refreshToken: u.refreshToken } }), 401);
  });
});

describe('password reset', () => {
  it('mails a single-use token that sets a new password and ends all sessions', async () => {
    const u = await h.user();
    const token = await requestReset(h, u.email);
    expect(await h.db.passwordResetToken.count({ where: { tokenHash: token } })).toBe(0);

    const res = await h.post('/auth/reset-password', { body: { token, newPassword: 'a brand new password' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: expect.any(String) });
    expectError(await h.post('/auth/signin', { body: { email: u.email, password: PASSWORD } }), 401);
    expect((await h.post('/auth/signin', { body: { email: u.email, password: 'a brand new password' } })).status).toBe(200);
    expectError(await h.post('/auth/refresh', { body: { refreshToken: u.refreshToken } }), 401);

    expectError(await h.post('/auth/reset-password', { body: { token, newPassword: 'yet another password' } }), 400);
  });
});

describe('change password', () => {
  it('changes the password and revokes every refresh token', async () => {
    const u = await h.user();
    const second = await h.signin(u.email);
    const res = await h.post('/auth/change-password', { token: u.accessToken, body: { currentPassword: PASSWORD, newPassword: 'another good password' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: expect.any(String) });
    for (const refreshToken of [u.refreshToken, second.refreshToken]) {
      expectError(await h.post('/auth/refresh', { body: { refreshToken } }), 401);
    }
    expect((await h.post('/auth/signin', { body: { email: u.email, password: 'another good password' } })).status).toBe(200);
  });
});
