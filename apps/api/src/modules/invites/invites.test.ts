import { randomUUID } from 'node:crypto';
import { hashSecret } from '@herald/core';
import { expectError, PASSWORD, startApi, uniqueEmail, type Harness, type Session } from '../../../../../test/harness';
import { addMember, createProject } from '../../../../../test/fixtures';
import { tokenFromMail, type CapturedMail } from '../../../../../test/smtp';

let h: Harness;
beforeAll(async () => {
  h = await startApi();
});
afterAll(() => h.close());

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const ACCEPT_URL = 'http://herald.test/accept-invite';
const DAY = 24 * 60 * 60 * 1000;

/** The `n`-th mail (from 1) to `email`, waiting up to 5 s for it. */
async function nthMail(email: string, n: number): Promise<CapturedMail> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const mails = h.smtp.mails.filter((m) => m.to.includes(email.toLowerCase()));
    if (mails.length >= n) return mails[n - 1];
    if (Date.now() > deadline) throw new Error(`mail #${n} to ${email} did not arrive`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function adminWithProject() {
  const admin = await h.user();
  const project = await createProject(h, admin);
  return { admin, project };
}

/** Invites `email` as `admin` and returns the invite and the token from its mail. */
async function invite(admin: Session, projectId: string, email: string, role?: 'team_member' | 'project_admin') {
  const res = await h.post('/projects/invite', { token: admin.accessToken, body: { email, projectId, ...(role ? { role } : {}) } });
  if (res.status !== 201) throw new Error(`invite failed: ${res.status} ${res.text}`);
  const mail = await nthMail(email, 1);
  return { invite: res.body, token: tokenFromMail(mail, ACCEPT_URL), mail };
}

const accept = (body: Record<string, unknown>) => h.post('/projects/accept-invite', { body });

describe('invite round trip through real SMTP', () => {
  it('invite → mail → accept creates the account → sign in → member of the project', async () => {
    const { admin, project } = await adminWithProject();
    const email = uniqueEmail('Invitee');
    const res = await h.post('/projects/invite', { token: admin.accessToken, body: { email: email.toUpperCase(), projectId: project.id } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      email: email.toLowerCase(),
      projectId: project.id,
      role: 'team_member',
      status: 'pending',
      createdAt: expect.stringMatching(ISO),
      expiresAt: expect.stringMatching(ISO),
    });
    const ttl = Date.parse(res.body.expiresAt) - Date.parse(res.body.createdAt);
    expect(Math.abs(ttl - 7 * DAY)).toBeLessThan(5000);

    const mail = await nthMail(email, 1);
    const token = tokenFromMail(mail, ACCEPT_URL);
    expect(mail.text).toContain(`${ACCEPT_URL}?token=${token}`);
    expect(mail.html).toContain(`${ACCEPT_URL}?token=${token}`);
    expect(mail.text).toContain(project.name);
    // The token is only in the mail: stored hashed, never in a response.
    const row = await h.db.invite.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(row.tokenHash).toBe(hashSecret(token));
    expect(res.text).not.toContain(token);

    const accepted = await accept({ token, firstName: 'Nina', lastName: 'New', password: PASSWORD });
    expect(accepted.status).toBe(201);
    expect(accepted.body).toEqual({
      user: { id: expect.any(String), email: email.toLowerCase(), firstName: 'Nina', lastName: 'New', role: 'team_member', createdAt: expect.stringMatching(ISO) },
      projectId: project.id,
      role: 'team_member',
      accessToken: expect.any(String),
      refreshToken: expect.any(String),
      expiresIn: 900,
    });
    const me = await h.get('/auth/me', { token: accepted.body.accessToken });
    expect(me.body).toEqual(accepted.body.user);

    const session = await h.signin(email, PASSWORD);
    const projects = await h.get('/projects', { token: session.accessToken });
    expect(projects.body).toEqual([{ id: project.id, name: project.name, createdAt: project.createdAt.toISOString(), role: 'team_member', isOwner: false }]);
    const team = await h.get(`/projects/${project.id}/team`, { token: admin.accessToken });
    expect(team.body).toContainEqual({ userId: accepted.body.user.id, email: email.toLowerCase(), firstName: 'Nina', lastName: 'New', role: 'team_member', isOwner: false, joinedAt: expect.stringMatching(ISO) });
    const invites = await h.get(`/projects/${project.id}/invites`, { token: admin.accessToken });
    expect(invites.body).toEqual([{ ...res.body, status: 'accepted' }]);

    // Single use.
    expectError(await accept({ token, firstName: 'Nina', lastName: 'New', password: PASSWORD }), 400, 'Invalid or expired invite token');
    // The refresh token of the accept response works.
    expect((await h.post('/auth/refresh', { body: { refreshToken: accepted.body.refreshToken } })).status).toBe(200);
  });

  it('a team_member created by an invite may not create projects, invite or manage API keys (403)', async () => {
    const { admin, project } = await adminWithProject();
    const email = uniqueEmail('member');
    const { token } = await invite(admin, project.id, email);
    const { body } = await accept({ token, firstName: 'T', lastName: 'M', password: PASSWORD });
    const member = body.accessToken as string;
    expect(body.user.role).toBe('team_member');

    expectError(await h.post('/projects', { token: member, body: { name: 'mine' } }), 403);
    expectError(await h.post('/projects/invite', { token: member, body: { email: uniqueEmail(), projectId: project.id } }), 403);
    expectError(await h.post(`/projects/${project.id}/api-keys`, { token: member, body: { name: 'k' } }), 403);
    expectError(await h.get(`/projects/${project.id}/api-keys`, { token: member }), 403);
    // Reading the project, its team and its invites is for every member.
    expect((await h.get(`/projects/${project.id}/team`, { token: member })).status).toBe(200);
    expect((await h.get(`/projects/${project.id}/invites`, { token: member })).status).toBe(200);
    expect((await h.get(`/projects/${project.id}`, { token: member })).status).toBe(200);
  });

  it('a project_admin invite makes a project_admin account that may create projects', async () => {
    const { admin, project } = await adminWithProject();
    const email = uniqueEmail('admin');
    const { invite: inv, token } = await invite(admin, project.id, email, 'project_admin');
    expect(inv.role).toBe('project_admin');
    const res = await accept({ token, firstName: 'A', lastName: 'D', password: PASSWORD });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ role: 'project_admin', user: { role: 'project_admin' } });
    expect((await h.post('/projects', { token: res.body.accessToken, body: { name: 'own' } })).status).toBe(201);
    expect((await h.post('/projects/invite', { token: res.body.accessToken, body: { email: uniqueEmail(), projectId: project.id } })).status).toBe(201);
  });
});

describe('accept with an existing account', () => {
  it('needs that account’s password (401 otherwise), ignores the names, and leaves the invite usable after a wrong password', async () => {
    const { admin, project } = await adminWithProject();
    const existing = await h.user({ firstName: 'Old', lastName: 'Name' });
    const { token, invite: inv } = await invite(admin, project.id, existing.email);

    expectError(await accept({ token, password: 'not the password' }), 401, 'Invalid password');
    expect((await h.db.invite.findUniqueOrThrow({ where: { id: inv.id } })).status).toBe('pending');

    const res = await accept({ token, firstName: 'Ignored', lastName: 'Too', password: existing.password });
    expect(res.status).toBe(201);
    expect(res.body.user).toEqual({ id: existing.id, email: existing.email, firstName: 'Old', lastName: 'Name', role: 'project_admin', createdAt: expect.any(String) });
    expect(res.body).toMatchObject({ projectId: project.id, role: 'team_member' });
    const projects = await h.get('/projects', { token: existing.accessToken });
    expect(projects.body).toContainEqual(expect.objectContaining({ id: project.id, role: 'team_member', isOwner: false }));
  });

  it('ignores names that a new account could not have (empty, null, not strings)', async () => {
    const { admin, project } = await adminWithProject();
    const existing = await h.user({ firstName: 'Old', lastName: 'Name' });
    const { token } = await invite(admin, project.id, existing.email);
    const res = await accept({ token, firstName: '', lastName: null, password: existing.password });
    expect(res.status).toBe(201);
    expect(res.body.user).toMatchObject({ id: existing.id, firstName: 'Old', lastName: 'Name' });
  });

  it('an account that is team_member everywhere becomes project_admin once invited as project_admin', async () => {
    const first = await adminWithProject();
    const email = uniqueEmail('promoted');
    const { token } = await invite(first.admin, first.project.id, email);
    const joined = await accept({ token, firstName: 'P', lastName: 'R', password: PASSWORD });
    expect(joined.body.user.role).toBe('team_member');

    const second = await adminWithProject();
    const res = await h.post('/projects/invite', { token: second.admin.accessToken, body: { email, projectId: second.project.id, role: 'project_admin' } });
    const token2 = tokenFromMail(await nthMail(email, 2), ACCEPT_URL);
    expect(res.status).toBe(201);
    const promoted = await accept({ token: token2, password: PASSWORD });
    expect(promoted.status).toBe(201);
    expect(promoted.body).toMatchObject({ role: 'project_admin', user: { role: 'project_admin' } });
    expect((await h.get('/auth/me', { token: joined.body.accessToken })).body.role).toBe('project_admin');
    // Still a team_member in the first project.
    const team = await h.get(`/projects/${first.project.id}/team`, { token: first.admin.accessToken });
    expect(team.body).toContainEqual(expect.objectContaining({ email, role: 'team_member' }));
  });
});

describe('accept errors', () => {
  it('an unknown token is 400', async () => {
    expectError(await accept({ token: 'no-such-token', firstName: 'A', lastName: 'B', password: PASSWORD }), 400, 'Invalid or expired invite token');
  });

  it('a new account needs names and a password of at least 8 characters (400 with details)', async () => {
    const { admin, project } = await adminWithProject();
    const { token, invite: inv } = await invite(admin, project.id, uniqueEmail());
    const short = await accept({ token, firstName: 'A', lastName: 'B', password: 'short' });
    expectError(short, 400, /at least 8 characters/);
    expect(short.body.details).toEqual([{ path: 'password', message: 'Password must be at least 8 characters' }]);
    const nameless = await accept({ token, password: PASSWORD });
    expectError(nameless, 400);
    expect(nameless.body.details.map((d: { path: string }) => d.path).sort()).toEqual(['firstName', 'lastName']);
    expectError(await accept({ firstName: 'A', lastName: 'B', password: PASSWORD }), 400);
    expectError(await accept({ token, firstName: 5, lastName: 'B', password: PASSWORD }), 400, /firstName must be a string/);
    // Nothing was consumed.
    expect((await h.db.invite.findUniqueOrThrow({ where: { id: inv.id } })).status).toBe('pending');
    expect((await accept({ token, firstName: 'A', lastName: 'B', password: PASSWORD })).status).toBe(201);
  });

  it('two concurrent accepts of one token: exactly one wins', async () => {
    const { admin, project } = await adminWithProject();
    const email = uniqueEmail('race');
    const { token } = await invite(admin, project.id, email);
    const results = await Promise.all([1, 2, 3].map(() => accept({ token, firstName: 'R', lastName: 'C', password: PASSWORD })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 400, 400]);
    expect(await h.db.user.count({ where: { email } })).toBe(1);
    expect(await h.db.projectMember.count({ where: { projectId: project.id, user: { email } } })).toBe(1);
  });
});

describe('POST /projects/invite errors', () => {
  it('409 for a current member and for an email with a pending invite (case-insensitive)', async () => {
    const { admin, project } = await adminWithProject();
    const member = await h.user();
    await addMember(h, project.id, member);
    expectError(await h.post('/projects/invite', { token: admin.accessToken, body: { email: member.email.toUpperCase(), projectId: project.id } }), 409, 'This user is already a member of the project');
    expectError(await h.post('/projects/invite', { token: admin.accessToken, body: { email: admin.email, projectId: project.id } }), 409, 'This user is already a member of the project');

    const email = uniqueEmail();
    await invite(admin, project.id, email);
    expectError(await h.post('/projects/invite', { token: admin.accessToken, body: { email: email.toUpperCase(), projectId: project.id, role: 'project_admin' } }), 409, 'A pending invite already exists for this email');
    // The same email may be invited to another project.
    const other = await createProject(h, admin);
    expect((await h.post('/projects/invite', { token: admin.accessToken, body: { email, projectId: other.id } })).status).toBe(201);
  });

  it('concurrent invites of one email: one 201, the rest 409', async () => {
    const { admin, project } = await adminWithProject();
    const email = uniqueEmail('twice');
    const results = await Promise.all([1, 2, 3].map(() => h.post('/projects/invite', { token: admin.accessToken, body: { email, projectId: project.id } })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    expect(await h.db.invite.count({ where: { projectId: project.id, email } })).toBe(1);
  });

  it('400 for bad input, 404 for a project the caller is not in', async () => {
    const { admin, project } = await adminWithProject();
    const bad = [
      { body: { projectId: project.id }, path: 'email' },
      { body: { email: 'nope', projectId: project.id }, path: 'email' },
      { body: { email: uniqueEmail() }, path: 'projectId' },
      { body: { email: uniqueEmail(), projectId: 'not-a-uuid' }, path: 'projectId' },
      { body: { email: uniqueEmail(), projectId: project.id, role: 'owner' }, path: 'role' },
    ];
    for (const { body, path } of bad) {
      const res = await h.post('/projects/invite', { token: admin.accessToken, body });
      expectError(res, 400);
      expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
    }
    expectError(await h.post('/projects/invite', { token: (await h.user()).accessToken, body: { email: uniqueEmail(), projectId: project.id } }), 404, 'Project not found');
    expectError(await h.post('/projects/invite', { body: { email: uniqueEmail(), projectId: project.id } }), 401);
  });
});

describe('resend-invite', () => {
  it('issues a new token, kills the old one, renews the expiry and mails again', async () => {
    const { admin, project } = await adminWithProject();
    const email = uniqueEmail('resend');
    const { invite: inv, token: oldToken } = await invite(admin, project.id, email);
    await h.db.invite.update({ where: { id: inv.id }, data: { expiresAt: new Date(Date.now() + DAY) } });

    const res = await h.post(`/projects/resend-invite/${inv.id}`, { token: admin.accessToken });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...inv, expiresAt: expect.stringMatching(ISO) });
    expect(Date.parse(res.body.expiresAt) - Date.now()).toBeGreaterThan(6.9 * DAY);

    const newToken = tokenFromMail(await nthMail(email, 2), ACCEPT_URL);
    expect(newToken).not.toBe(oldToken);
    expectError(await accept({ token: oldToken, firstName: 'A', lastName: 'B', password: PASSWORD }), 400, 'Invalid or expired invite token');
    expect((await accept({ token: newToken, firstName: 'A', lastName: 'B', password: PASSWORD })).status).toBe(201);
    // Accepted: no longer pending.
    expectError(await h.post(`/projects/resend-invite/${inv.id}`, { token: admin.accessToken }), 409, 'Only pending invites can be resent');
  });

  it('403 for a team_member, 404 for a stranger or an unknown invite, 400 for a malformed id', async () => {
    const { admin, project } = await adminWithProject();
    const member = await h.user();
    await addMember(h, project.id, member);
    const { invite: inv } = await invite(admin, project.id, uniqueEmail());
    expectError(await h.post(`/projects/resend-invite/${inv.id}`, { token: member.accessToken }), 403);
    expectError(await h.post(`/projects/resend-invite/${inv.id}`, { token: (await h.user()).accessToken }), 404, 'Invite not found');
    expectError(await h.post(`/projects/resend-invite/${randomUUID()}`, { token: admin.accessToken }), 404, 'Invite not found');
    expectError(await h.post('/projects/resend-invite/123', { token: admin.accessToken }), 400);
  });
});

describe('cancel-invite', () => {
  it('cancels a pending invite (200) whose token then fails; a second cancel is 409', async () => {
    const { admin, project } = await adminWithProject();
    const email = uniqueEmail('cancel');
    const { invite: inv, token } = await invite(admin, project.id, email);

    const res = await h.delete(`/projects/cancel-invite/${inv.id}`, { token: admin.accessToken });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...inv, status: 'cancelled' });
    expectError(await accept({ token, firstName: 'A', lastName: 'B', password: PASSWORD }), 400, 'Invalid or expired invite token');
    expectError(await h.delete(`/projects/cancel-invite/${inv.id}`, { token: admin.accessToken }), 409, 'Only pending invites can be cancelled');
    expectError(await h.post(`/projects/resend-invite/${inv.id}`, { token: admin.accessToken }), 409, 'Only pending invites can be resent');
    const list = await h.get(`/projects/${project.id}/invites`, { token: admin.accessToken });
    expect(list.body).toEqual([{ ...inv, status: 'cancelled' }]);
    // The email may be invited again.
    expect((await h.post('/projects/invite', { token: admin.accessToken, body: { email, projectId: project.id } })).status).toBe(201);
  });

  it('is routed to the invite, never to DELETE /projects/{projectId}', async () => {
    const { admin, project } = await adminWithProject();
    // A project id in the invite slot is just an unknown invite; the project stays.
    expectError(await h.delete(`/projects/cancel-invite/${project.id}`, { token: admin.accessToken }), 404, 'Invite not found');
    expect(await h.db.project.count({ where: { id: project.id } })).toBe(1);
  });

  it('403 for a team_member, 404 for a stranger', async () => {
    const { admin, project } = await adminWithProject();
    const member = await h.user();
    await addMember(h, project.id, member);
    const { invite: inv } = await invite(admin, project.id, uniqueEmail());
    expectError(await h.delete(`/projects/cancel-invite/${inv.id}`, { token: member.accessToken }), 403);
    expectError(await h.delete(`/projects/cancel-invite/${inv.id}`, { token: (await h.user()).accessToken }), 404, 'Invite not found');
    expect((await h.db.invite.findUniqueOrThrow({ where: { id: inv.id } })).status).toBe('pending');
  });
});

describe('expired invites', () => {
  it('are listed as expired and refused by accept, resend and cancel; the email may be invited again', async () => {
    const { admin, project } = await adminWithProject();
    const email = uniqueEmail('late');
    const { invite: inv, token } = await invite(admin, project.id, email);
    await h.db.invite.update({ where: { id: inv.id }, data: { expiresAt: new Date(Date.now() - 1000) } });

    expectError(await accept({ token, firstName: 'A', lastName: 'B', password: PASSWORD }), 400, 'Invalid or expired invite token');
    const list = await h.get(`/projects/${project.id}/invites`, { token: admin.accessToken });
    expect(list.body).toEqual([{ ...inv, status: 'expired', expiresAt: expect.stringMatching(ISO) }]);
    expect((await h.db.invite.findUniqueOrThrow({ where: { id: inv.id } })).status).toBe('expired');
    expectError(await h.post(`/projects/resend-invite/${inv.id}`, { token: admin.accessToken }), 409);
    expectError(await h.delete(`/projects/cancel-invite/${inv.id}`, { token: admin.accessToken }), 409);
    expect(await h.db.user.count({ where: { email } })).toBe(0);

    const again = await h.post('/projects/invite', { token: admin.accessToken, body: { email, projectId: project.id } });
    expect(again.status).toBe(201);
    expect(again.body.status).toBe('pending');
  });

  it('a pending invite past its expiry frees its email for a new invite without a list first', async () => {
    const { admin, project } = await adminWithProject();
    const email = uniqueEmail('stale');
    const { invite: inv } = await invite(admin, project.id, email);
    await h.db.invite.update({ where: { id: inv.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await h.post('/projects/invite', { token: admin.accessToken, body: { email, projectId: project.id } })).status).toBe(201);
    expect((await h.db.invite.findUniqueOrThrow({ where: { id: inv.id } })).status).toBe('expired');
  });
});

describe('GET /projects/{projectId}/invites', () => {
  it('lists every invite of the project, newest first, without tokens; 404 for a stranger', async () => {
    const { admin, project } = await adminWithProject();
    const first = await invite(admin, project.id, uniqueEmail('a'));
    await new Promise((r) => setTimeout(r, 5));
    const second = await invite(admin, project.id, uniqueEmail('b'), 'project_admin');
    const other = await createProject(h, admin);
    await invite(admin, other.id, uniqueEmail('c'));

    const res = await h.get(`/projects/${project.id}/invites`, { token: admin.accessToken });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([second.invite, first.invite]);
    expect(res.text).not.toContain(first.token);
    expect(res.text).not.toContain('tokenHash');
    expectError(await h.get(`/projects/${project.id}/invites`, { token: (await h.user()).accessToken }), 404, 'Project not found');
  });

  it('never logs invite tokens or passwords', async () => {
    const { admin, project } = await adminWithProject();
    const { token } = await invite(admin, project.id, uniqueEmail('log'));
    await accept({ token, firstName: 'L', lastName: 'G', password: 'a very secret password' });
    const logs = h.logLines.join('\n');
    expect(logs).not.toContain(token);
    expect(logs).not.toContain('a very secret password');
  });
});
