import { randomUUID } from 'node:crypto';
import { addMember, createProject, expectError, startApi, unique, type Harness } from '@herald/testing';

/** Projects and their team: credentials, roles and tenancy: who may do what, and what never leaks. */

let h: Harness;
beforeAll(async () => {
  h = await startApi();
});
afterAll(() => h.close());

describe('POST /projects', () => {
  it('refuses an account whose role is team_member with 403', async () => {
    const u = await h.user();
    await h.db.user.update({ where: { id: u.id }, data: { role: 'team_member' } });
    expectError(await h.post('/projects', { token: u.accessToken, body: { name: unique('p') } }), 403, 'Only project admins may create projects');
  });
});

describe('DELETE /projects/{projectId}', () => {
  it('is for the owner only: 403 for other members (even admins), 404 for non-members', async () => {
    const owner = await h.user();
    const admin = await h.user();
    const project = await createProject(h, owner);
    await addMember(h, project.id, admin, 'project_admin');
    expectError(await h.delete(`/projects/${project.id}`, { token: admin.accessToken }), 403, 'Only the project owner may do this');
    expectError(await h.delete(`/projects/${project.id}`, { token: (await h.user()).accessToken }), 404, 'Project not found');
    expect(await h.db.project.count({ where: { id: project.id } })).toBe(1);
  });
});

describe('team', () => {
  it('a team_member gets the documented 401 "unauthorized (no permission to remove members)"', async () => {
    const owner = await h.user();
    const member = await h.user();
    const other = await h.user();
    const project = await createProject(h, owner);
    await addMember(h, project.id, member);
    await addMember(h, project.id, other);

    const res = await h.delete(`/projects/${project.id}/members/${other.id}`, { token: member.accessToken });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ statusCode: 401, message: 'unauthorized (no permission to remove members)', error: 'Unauthorized' });
    expect(await h.db.projectMember.count({ where: { projectId: project.id, userId: other.id } })).toBe(1);
  });

  it('404 for an unknown project, a project the caller is not in, or a user who is not a member', async () => {
    const owner = await h.user();
    const outsider = await h.user();
    const project = await createProject(h, owner);
    await addMember(h, project.id, await h.user());
    expectError(await h.delete(`/projects/${project.id}/members/${outsider.id}`, { token: owner.accessToken }), 404, 'Member not found');
    expectError(await h.delete(`/projects/${project.id}/members/${randomUUID()}`, { token: owner.accessToken }), 404, 'Member not found');
    expectError(await h.delete(`/projects/${randomUUID()}/members/${outsider.id}`, { token: owner.accessToken }), 404, 'Project not found');
    // A non-member learns nothing, not even that it lacks permission.
    expectError(await h.delete(`/projects/${project.id}/members/${owner.id}`, { token: outsider.accessToken }), 404, 'Project not found');
    expectError(await h.delete(`/projects/${project.id}/members/nope`, { token: owner.accessToken }), 400);
  });
});
