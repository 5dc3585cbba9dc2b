import { createProject, expectError, PASSWORD, startApi, tokenFromMail, uniqueEmail, type ApiResponse, type Harness } from '@herald/testing';
import { SIGNUP_CLOSED } from './auth.routes';
import { createAuthService } from './auth.service';

/**
 * Hardening: guessing outside the limits. change-password and accept-invite (into an existing
 * account) checked passwords without limit, and the sign-in limit counted per (IP, e-mail), so one
 * IP could spray many accounts. And an operator can close public sign-up.
 */
const prefix = (name: string) => `${process.env.QUEUE_PREFIX}-${name}`;

function expect429(res: ApiResponse) {
  expectError(res, 429, 'Too many requests, please try again later');
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
}

describe('per-IP sign-in limit, beside the per-(IP, e-mail) one', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startApi({ QUEUE_PREFIX: prefix('signin-ip'), RATE_LIMIT_AUTH: '10', RATE_LIMIT_SIGNIN_PER_IP: '15' });
  });
  afterAll(() => h.close());

  it('one IP trying 40 accounts is refused after 15 attempts, each account tried only once', async () => {
    const statuses: number[] = [];
    let last: ApiResponse | undefined;
    for (let i = 0; i < 40; i++) {
      last = await h.post('/auth/signin', { body: { email: uniqueEmail('sprayed'), password: 'Summer2026!' } });
      statuses.push(last.status);
    }
    expect(statuses.slice(0, 15)).toEqual(Array(15).fill(401));
    expect(statuses.slice(15)).toEqual(Array(25).fill(429));
    expect429(last!);
  });
});

describe('per-account limit on password checks', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startApi({ QUEUE_PREFIX: prefix('password-check'), RATE_LIMIT_PASSWORD_CHECK: '5' });
  });
  afterAll(() => h.close());

  it('change-password: 5 wrong guesses, then 429 even for the right one; another account is unaffected', async () => {
    const u = await h.user();
    const other = await h.user();
    const change = (token: string, currentPassword: string) => h.post('/auth/change-password', { token, body: { currentPassword, newPassword: 'a brand new password' } });
    for (let i = 0; i < 5; i++) expectError(await change(u.accessToken, `wrong guess ${i}`), 400, 'Current password is incorrect');
    expect429(await change(u.accessToken, 'wrong guess 6'));
    expect429(await change(u.accessToken, PASSWORD));
    expect((await change(other.accessToken, PASSWORD)).status).toBe(200);
  });

  it('accept-invite into an existing account: 5 wrong passwords, then 429 (and the invite stays pending)', async () => {
    const owner = await h.user();
    const target = await h.user();
    const project = await createProject(h, owner);
    const invited = await h.post('/projects/invite', { token: owner.accessToken, body: { email: target.email, projectId: project.id } });
    expect(invited.status).toBe(201);
    const token = tokenFromMail(await h.smtp.waitFor(target.email), `${h.config.appUrl}/accept-invite`);
    const accept = (password: string) => h.post('/projects/accept-invite', { body: { token, password } });
    for (let i = 0; i < 5; i++) expectError(await accept(`wrong guess ${i}`), 401, 'Invalid password');
    expect429(await accept('wrong guess 6'));
    expect429(await accept(PASSWORD));
    expect((await h.db.invite.findUniqueOrThrow({ where: { id: invited.body.id } })).status).toBe('pending');
    // The same account's change-password shares the bucket: it is exhausted too.
    expect429(await h.post('/auth/change-password', { token: target.accessToken, body: { currentPassword: PASSWORD, newPassword: 'a brand new password' } }));
  });
});

describe('limits keyed on a body field', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startApi({ QUEUE_PREFIX: prefix('body-keyed'), RATE_LIMIT_AUTH: '3', RATE_LIMIT_PASSWORD_CHECK: '3' });
  });
  afterAll(() => h.close());

  it('count a request once its body is valid: malformed ones are 400s and use up nothing', async () => {
    const owner = await h.user();
    const target = await h.user();
    const project = await createProject(h, owner);
    expect((await h.post('/projects/invite', { token: owner.accessToken, body: { email: target.email, projectId: project.id } })).status).toBe(201);
    const token = tokenFromMail(await h.smtp.waitFor(target.email), `${h.config.appUrl}/accept-invite`);
    // Keyed on the invite's account (accept-invite) and on the body's e-mail (sign-in).
    for (let i = 0; i < 5; i++) {
      expectError(await h.post('/projects/accept-invite', { body: { token, password: 42 } }), 400, 'Invalid request body: password: password must be a string');
      expectError(await h.post('/auth/signin', { body: { email: target.email, password: 42 } }), 400, 'Invalid request body: password: password must be a string');
    }
    for (let i = 0; i < 3; i++) expectError(await h.post('/projects/accept-invite', { body: { token, password: `wrong guess ${i}` } }), 401, 'Invalid password');
    expect429(await h.post('/projects/accept-invite', { body: { token, password: PASSWORD } }));
    // `h.user()` signed in once already: two of the three sign-ins are left.
    for (let i = 0; i < 2; i++) expect((await h.post('/auth/signin', { body: { email: target.email, password: PASSWORD } })).status).toBe(200);
    expect429(await h.post('/auth/signin', { body: { email: target.email, password: PASSWORD } }));
  });
});

describe('SIGNUP_ENABLED=false', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startApi({ QUEUE_PREFIX: prefix('signup-closed'), SIGNUP_ENABLED: 'false' });
  });
  afterAll(() => h.close());

  it('closes public sign-up with 403; an invite still creates an account', async () => {
    const email = uniqueEmail('walk-in');
    expectError(await h.post('/auth/signup', { body: { email, password: PASSWORD, firstName: 'A', lastName: 'B' } }), 403, SIGNUP_CLOSED);
    expect(await h.db.user.count({ where: { email } })).toBe(0);

    // An operator-made admin invites someone, who gets an account by accepting.
    const admin = await h.db.user.create({ data: { email: uniqueEmail('admin'), passwordHash: await createAuthService(h.container).hashPassword(PASSWORD), firstName: 'Op', lastName: 'Erator', role: 'project_admin' } });
    const { accessToken } = await h.signin(admin.email);
    const project = (await h.post('/projects', { token: accessToken, body: { name: 'Closed shop' } })).body;
    const invitee = uniqueEmail('invitee');
    expect((await h.post('/projects/invite', { token: accessToken, body: { email: invitee, projectId: project.id } })).status).toBe(201);
    const token = tokenFromMail(await h.smtp.waitFor(invitee), `${h.config.appUrl}/accept-invite`);
    const accepted = await h.post('/projects/accept-invite', { body: { token, firstName: 'New', lastName: 'Member', password: PASSWORD } });
    expect(accepted.status).toBe(201);
    expect(accepted.body.user.email).toBe(invitee);
    expect((await h.signin(invitee)).accessToken).toBeTruthy();
  });
});
