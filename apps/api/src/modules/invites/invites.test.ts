import { hashSecret } from '@herald/core';
import { ACCEPT_URL, inviteSteps } from './test-helpers/invite-steps';
import { createProject, expectError, PASSWORD, startApi, tokenFromMail, uniqueEmail, type Harness } from '@herald/testing';

/**
 * Invites: what the endpoints do when used as intended. Refusals are in
 * invites.errors.test.ts, credentials, roles and tenancy in invites.security.test.ts.
 */

let h: Harness;
beforeAll(async () => {
  h = await startApi();
});
afterAll(() => h.close());

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const DAY = 24 * 60 * 60 * 1000;

const { adminWithProject, invite, accept } = inviteSteps(() => h);

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

    const mail = await h.smtp.nthMail(email, 1);
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
    const token2 = tokenFromMail(await h.smtp.nthMail(email, 2), ACCEPT_URL);
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

    const newToken = tokenFromMail(await h.smtp.nthMail(email, 2), ACCEPT_URL);
    expect(newToken).not.toBe(oldToken);
    expectError(await accept({ token: oldToken, firstName: 'A', lastName: 'B', password: PASSWORD }), 400, 'Invalid or expired invite token');
    expect((await accept({ token: newToken, firstName: 'A', lastName: 'B', password: PASSWORD })).status).toBe(201);
    // Accepted: no longer pending.
    expectError(await h.post(`/projects/resend-invite/${inv.id}`, { token: admin.accessToken }), 409, 'Only pending invites can be resent');
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
});
