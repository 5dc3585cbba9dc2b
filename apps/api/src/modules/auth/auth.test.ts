import jwt from 'jsonwebtoken';
import { hashSecret } from '@herald/core';
import { expectError, PASSWORD, startApi, uniqueEmail, type Harness } from '../../../../../test/harness';
import { tokenFromMail } from '../../../../../test/smtp';

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

  it('refuses a duplicate email, case-insensitively, with 409', async () => {
    const u = await h.signup();
    expectError(await h.post('/auth/signup', { body: { email: u.email.toUpperCase(), password: PASSWORD, firstName: 'A', lastName: 'B' } }), 409);
  });

  it('refuses a weak password with 400 and details', async () => {
    const res = await h.post('/auth/signup', { body: { email: uniqueEmail(), password: 'short', firstName: 'A', lastName: 'B' } });
    expectError(res, 400, /at least 8 characters/);
    expect(res.body.error).toBe('Bad Request');
    expect(res.body.details).toEqual([{ path: 'password', message: 'Password must be at least 8 characters' }]);
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

  it('refuses missing and mistyped fields with 400 naming each', async () => {
    const res = await h.post('/auth/signup', { body: { email: 'not-an-email', password: 12345678 } });
    expectError(res, 400);
    expect(res.body.details.map((d: { path: string }) => d.path).sort()).toEqual(['email', 'firstName', 'lastName', 'password']);
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

  it('answers 401 Invalid email or password for a wrong password and for an unknown email', async () => {
    const u = await h.signup();
    expectError(await h.post('/auth/signin', { body: { email: u.email, password: 'wrong password' } }), 401, 'Invalid email or password');
    const unknown = await h.post('/auth/signin', { body: { email: uniqueEmail(), password: PASSWORD } });
    expectError(unknown, 401, 'Invalid email or password');
    expect(unknown.body).toEqual({ statusCode: 401, message: 'Invalid email or password', error: 'Unauthorized' });
  });
});

describe('bearer token errors', () => {
  it('missing or malformed header → Missing or invalid authorization header', async () => {
    for (const headers of [{} as Record<string, string>, { authorization: 'Token abc' }, { authorization: 'Bearer' }, { authorization: 'Basic dXNlcjpwYXNz' }]) {
      const res = await h.get('/auth/me', { headers });
      expect(res.body).toEqual({ statusCode: 401, message: 'Missing or invalid authorization header', error: 'Unauthorized' });
    }
  });

  it('bad signature, garbage, or another algorithm → Invalid token', async () => {
    const u = await h.user();
    const forged = jwt.sign({ typ: 'access' }, 'another-secret', { subject: u.id, expiresIn: 60 });
    const unsigned = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from(JSON.stringify({ sub: u.id, typ: 'access' })).toString('base64url')}.`;
    for (const token of [forged, 'not.a.jwt', unsigned, u.accessToken.slice(0, -2) + 'xx']) {
      expect((await h.get('/auth/me', { token })).body).toEqual({ statusCode: 401, message: 'Invalid token', error: 'Unauthorized' });
    }
  });

  it('a validly signed token whose subject is not a user id → Invalid token (not a failed query)', async () => {
    for (const subject of ['abc', "1' OR '1'='1"]) {
      const token = jwt.sign({ typ: 'access' }, h.config.jwt.secret, { subject, expiresIn: 60 });
      expect((await h.get('/auth/me', { token })).body).toEqual({ statusCode: 401, message: 'Invalid token', error: 'Unauthorized' });
    }
  });

  it('expired → Token has expired', async () => {
    const u = await h.user();
    const expired = jwt.sign({ typ: 'access' }, h.config.jwt.secret, { subject: u.id, expiresIn: -10 });
    expect((await h.get('/auth/me', { token: expired })).body).toEqual({ statusCode: 401, message: 'Token has expired', error: 'Unauthorized' });
  });

  it('a token of a deleted user → Invalid token', async () => {
    const u = await h.user();
    await h.db.user.delete({ where: { id: u.id } });
    expectError(await h.get('/auth/me', { token: u.accessToken }), 401, 'Invalid token');
  });
});

describe('refresh', () => {
  it('rotates: the new pair works and the old refresh token is spent', async () => {
    const u = await h.user();
    const first = await h.post('/auth/refresh', { body: { refreshToken: u.refreshToken } });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ accessToken: expect.any(String), refreshToken: expect.any(String), expiresIn: 900, tokenType: 'Bearer' });
    expect(first.body.refreshToken).not.toBe(u.refreshToken);
    expect((await h.get('/auth/me', { token: first.body.accessToken })).status).toBe(200);
    const second = await h.post('/auth/refresh', { body: { refreshToken: first.body.refreshToken } });
    expect(second.status).toBe(200);
  });

  it('reuse of a spent token revokes the whole family', async () => {
    const u = await h.user();
    const rotated = await h.post('/auth/refresh', { body: { refreshToken: u.refreshToken } });
    expect(rotated.status).toBe(200);
    expectError(await h.post('/auth/refresh', { body: { refreshToken: u.refreshToken } }), 401);
    // the legitimate successor is dead too
    expectError(await h.post('/auth/refresh', { body: { refreshToken: rotated.body.refreshToken } }), 401);
    // another session of the same user is untouched
    const other = await h.signin(u.email);
    expect((await h.post('/auth/refresh', { body: { refreshToken: other.refreshToken } })).status).toBe(200);
  });

  it('refuses unknown and expired refresh tokens', async () => {
    expectError(await h.post('/auth/refresh', { body: { refreshToken: 'nope' } }), 401);
    const u = await h.user();
    await h.db.refreshToken.update({ where: { tokenHash: hashSecret(u.refreshToken) }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expectError(await h.post('/auth/refresh', { body: { refreshToken: u.refreshToken } }), 401);
  });

  it('stores refresh tokens only as hashes', async () => {
    const u = await h.user();
    const rows = await h.db.refreshToken.findMany({ where: { userId: u.id } });
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(u.refreshToken);
    expect(rows[0].tokenHash).toBe(hashSecret(u.refreshToken));
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
  async function requestReset(email: string) {
    const res = await h.post('/auth/request-password-reset', { body: { email } });
    expect(res.status).toBe(200);
    const mail = await h.smtp.waitFor(email, /reset/i);
    expect(mail.html).toContain('http://herald.test/reset-password?token=');
    return tokenFromMail(mail, 'http://herald.test/reset-password');
  }

  it('mails a single-use token that sets a new password and ends all sessions', async () => {
    const u = await h.user();
    const token = await requestReset(u.email);
    expect(await h.db.passwordResetToken.count({ where: { tokenHash: token } })).toBe(0);

    const res = await h.post('/auth/reset-password', { body: { token, newPassword: 'a brand new password' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: expect.any(String) });
    expectError(await h.post('/auth/signin', { body: { email: u.email, password: PASSWORD } }), 401);
    expect((await h.post('/auth/signin', { body: { email: u.email, password: 'a brand new password' } })).status).toBe(200);
    expectError(await h.post('/auth/refresh', { body: { refreshToken: u.refreshToken } }), 401);

    expectError(await h.post('/auth/reset-password', { body: { token, newPassword: 'yet another password' } }), 400);
  });

  it('answers the same for an unknown email and sends nothing', async () => {
    const known = await h.signup();
    const a = await h.post('/auth/request-password-reset', { body: { email: known.email } });
    const b = await h.post('/auth/request-password-reset', { body: { email: uniqueEmail('ghost') } });
    expect(b.status).toBe(200);
    expect(b.body).toEqual(a.body);
    await h.smtp.waitFor(known.email);
    expect(h.smtp.mails.some((m) => m.to.some((t) => t.startsWith('ghost-')))).toBe(false);
  });

  it('refuses an expired token and an unknown token with 400', async () => {
    const u = await h.signup();
    const token = await requestReset(u.email);
    await h.db.passwordResetToken.updateMany({ where: { tokenHash: hashSecret(token) }, data: { expiresAt: new Date(Date.now() - 1) } });
    expectError(await h.post('/auth/reset-password', { body: { token, newPassword: 'a brand new password' } }), 400);
    expectError(await h.post('/auth/reset-password', { body: { token: 'unknown', newPassword: 'a brand new password' } }), 400);
  });

  it('refuses a weak new password', async () => {
    const u = await h.signup();
    const token = await requestReset(u.email);
    expectError(await h.post('/auth/reset-password', { body: { token, newPassword: 'short' } }), 400);
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

  it('refuses a wrong current password with 400 and needs a bearer token', async () => {
    const u = await h.user();
    expectError(await h.post('/auth/change-password', { token: u.accessToken, body: { currentPassword: 'wrong password', newPassword: 'another good password' } }), 400);
    expectError(await h.post('/auth/change-password', { body: { currentPassword: PASSWORD, newPassword: 'another good password' } }), 401, 'Missing or invalid authorization header');
  });
});

describe('secrets stay out of logs', () => {
  it('never logs passwords or tokens', async () => {
    const u = await h.user({ password: 'a very distinctive password' });
    await h.post('/auth/refresh', { body: { refreshToken: u.refreshToken } });
    await h.get('/auth/me', { token: u.accessToken });
    const logs = h.logLines.join('\n');
    expect(logs).not.toContain('a very distinctive password');
    expect(logs).not.toContain(u.refreshToken);
    expect(logs).not.toContain(u.accessToken);
  });
});
