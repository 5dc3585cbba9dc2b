import { inviteSteps } from './test-helpers/invite-steps';
import { addMember, createProject, expectError, PASSWORD, startApi, uniqueEmail, type Harness } from '@herald/testing';

/** Invites: what the endpoints refuse, and with which status and message. */

let h: Harness;
beforeAll(async () => {
  h = await startApi();
});
afterAll(() => h.close());

const { adminWithProject, invite, accept } = inviteSteps(() => h);

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
