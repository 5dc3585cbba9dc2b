import jwt from 'jsonwebtoken';
import { requestReset } from './test-helpers/reset-steps';
import { hashSecret } from '@herald/core';
import { expectError, PASSWORD, startApi, uniqueEmail, type Harness } from '@herald/testing';

/** Accounts and sessions: what the endpoints refuse, and with which status and message. */

let h: Harness;
beforeAll(async () => {
  h = await startApi();
});
afterAll(() => h.close());

describe('signup', () => {
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

  it('refuses missing and mistyped fields with 400 naming each', async () => {
    const res = await h.post('/auth/signup', { body: { email: 'not-an-email', password: 12345678 } });
    expectError(res, 400);
    expect(res.body.details.map((d: { path: string }) => d.path).sort()).toEqual(['email', 'firstName', 'lastName', 'password']);
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
  it('refuses unknown and expired refresh tokens', async () => {
    expectError(await h.post('/auth/refresh', { body: { refreshToken: 'nope' } }), 401);
    const u = await h.user();
    await h.db.refreshToken.update({ where: { tokenHash: hashSecret(u.refreshToken) }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expectError(await h.post('/auth/refresh', { body: { refreshToken: u.refreshToken } }), 401);
  });
});

describe('password reset', () => {
  it('refuses an expired token and an unknown token with 400', async () => {
    const u = await h.signup();
    const token = await requestReset(h, u.email);
    await h.db.passwordResetToken.updateMany({ where: { tokenHash: hashSecret(token) }, data: { expiresAt: new Date(Date.now() - 1) } });
    expectError(await h.post('/auth/reset-password', { body: { token, newPassword: 'a brand new password' } }), 400);
    expectError(await h.post('/auth/reset-password', { body: { token: 'unknown', newPassword: 'a brand new password' } }), 400);
  });

  it('refuses a weak new password', async () => {
    const u = await h.signup();
    const token = await requestReset(h, u.email);
    expectError(await h.post('/auth/reset-password', { body: { token, newPassword: 'short' } }), 400);
  });
});

describe('change password', () => {
  it('refuses a wrong current password with 400 and needs a bearer token', async () => {
    const u = await h.user();
    expectError(await h.post('/auth/change-password', { token: u.accessToken, body: { currentPassword: 'wrong password', newPassword: 'another good password' } }), 400);
    expectError(await h.post('/auth/change-password', { body: { currentPassword: PASSWORD, newPassword: 'another good password' } }), 401, 'Missing or invalid authorization header');
  });
});
