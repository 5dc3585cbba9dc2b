import { randomUUID } from 'node:crypto';
import { inviteSteps } from './test-helpers/invite-steps';
import { addMember, expectError, PASSWORD, startApi, uniqueEmail, type Harness } from '@herald/testing';

/** Invites: credentials, roles and tenancy: who may do what, and what never leaks. */

let h: Harness;
beforeAll(async () => {
  h = await startApi();
});
afterAll(() => h.close());

const { adminWithProject, invite, accept } = inviteSteps(() => h);

describe('invite round trip through real SMTP', () => {
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
});

describe('resend-invite', () => {
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

describe('GET /projects/{projectId}/invites', () => {
  it('never logs invite tokens or passwords', async () => {
    const { admin, project } = await adminWithProject();
    const { token } = await invite(admin, project.id, uniqueEmail('log'));
    await accept({ token, firstName: 'L', lastName: 'G', password: 'a very secret password' });
    const logs = h.logLines.join('\n');
    expect(logs).not.toContain(token);
    expect(logs).not.toContain('a very secret password');
  });
});
