import { hashSecret } from '@herald/core';
import { expectError, PASSWORD, startApi, uniqueEmail, type Harness } from '@herald/testing';

/** Accounts and sessions: credentials, roles and tenancy: who may do what, and what never leaks. */

let h: Harness;
beforeAll(async () => {
  h = await startApi();
});
afterAll(() => h.close());

describe('signin', () => {
  it('answers 401 Invalid email or password for a wrong password and for an unknown email', async () => {
    const u = await h.signup();
    expectError(await h.post('/auth/signin', { body: { email: u.email, password: 'wrong password' } }), 401, 'Invalid email or password');
    const unknown = await h.post('/auth/signin', { body: { email: uniqueEmail(), password: PASSWORD } });
    expectError(unknown, 401, 'Invalid email or password');
    expect(unknown.body).toEqual({ statusCode: 401, message: 'Invalid email or password', error: 'Unauthorized' });
  });
});

describe('refresh', () => {
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

  it('stores refresh tokens only as hashes', async () => {
    const u = await h.user();
    const rows = await h.db.refreshToken.findMany({ where: { userId: u.id } });
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(u.refreshToken);
    expect(rows[0].tokenHash).toBe(hashSecret(u.refreshToken));
  });
});

describe('password reset', () => {
  it('answers the same for an unknown email and sends nothing', async () => {
    const known = await h.signup();
    const a = await h.post('/auth/request-password-reset', { body: { email: known.email } });
    const b = await h.post('/auth/request-password-reset', { body: { email: uniqueEmail('ghost') } });
    expect(b.status).toBe(200);
    expect(b.body).toEqual(a.body);
    await h.smtp.waitFor(known.email);
    expect(h.smtp.mails.some((m) => m.to.some((t) => t.startsWith('ghost-')))).toBe(false);
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
