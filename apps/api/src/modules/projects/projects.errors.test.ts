import { addMember, createProject, expectError, startApi, type Harness } from '@herald/testing';

/** Projects and their team: what the endpoints refuse, and with which status and message. */

let h: Harness;
beforeAll(async () => {
  h = await startApi();
});
afterAll(() => h.close());

describe('POST /projects', () => {
  it('refuses a missing, empty or overlong name with 400, and no credentials with 401', async () => {
    const u = await h.user();
    for (const body of [{}, { name: '   ' }, { name: 42 }, { name: 'x'.repeat(201) }]) {
      const res = await h.post('/projects', { token: u.accessToken, body });
      expectError(res, 400);
      expect(res.body.details[0].path).toBe('name');
    }
    expectError(await h.post('/projects', { body: { name: 'p' } }), 401, 'Missing or invalid authorization header');
  });
});

describe('team', () => {
  it('the owner cannot be removed (400)', async () => {
    const owner = await h.user();
    const admin = await h.user();
    const project = await createProject(h, owner);
    await addMember(h, project.id, admin, 'project_admin');
    expectError(await h.delete(`/projects/${project.id}/members/${owner.id}`, { token: admin.accessToken }), 400, 'The project owner cannot be removed');
    expectError(await h.delete(`/projects/${project.id}/members/${owner.id}`, { token: owner.accessToken }), 400, 'The project owner cannot be removed');
    expect(await h.db.projectMember.count({ where: { projectId: project.id, userId: owner.id } })).toBe(1);
  });
});
