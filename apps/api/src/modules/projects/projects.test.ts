import { addMember, createApiKey, createProject, expectError, startApi, unique, type Harness } from '@herald/testing';

/**
 * Projects and their team: what the endpoints do when used as intended. Refusals are in
 * projects.errors.test.ts, credentials, roles and tenancy in projects.security.test.ts.
 */

let h: Harness;
beforeAll(async () => {
  h = await startApi();
});
afterAll(() => h.close());

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('POST /projects', () => {
  it('creates a project whose creator is its owner and a project_admin member', async () => {
    const u = await h.user();
    const name = unique('Project');
    const res = await h.post('/projects', { token: u.accessToken, body: { name: `  ${name} ` } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.any(String), name, createdAt: expect.stringMatching(ISO) });
    const project = await h.db.project.findUniqueOrThrow({ where: { id: res.body.id }, include: { members: true } });
    expect(project.ownerId).toBe(u.id);
    expect(project.members).toEqual([expect.objectContaining({ userId: u.id, role: 'project_admin' })]);
  });
});

describe('GET /projects and GET /projects/{projectId}', () => {
  it('lists only the projects the caller belongs to, with role and ownership, as a bare array', async () => {
    const owner = await h.user();
    const member = await h.user();
    const own = await createProject(h, owner);
    const joined = await createProject(h, member);
    await addMember(h, joined.id, owner, 'team_member');
    await createProject(h, member); // not the owner's

    const res = await h.get('/projects', { token: owner.accessToken });
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(2);
    expect(res.body).toEqual(expect.arrayContaining([
      { id: own.id, name: own.name, createdAt: own.createdAt.toISOString(), role: 'project_admin', isOwner: true },
      { id: joined.id, name: joined.name, createdAt: joined.createdAt.toISOString(), role: 'team_member', isOwner: false },
    ]));
    expect((await h.get('/projects', { token: (await h.user()).accessToken })).body).toEqual([]);
  });

  it('reads one project for a member and for an API key of that project only', async () => {
    const owner = await h.user();
    const project = await createProject(h, owner);
    const other = await createProject(h, owner);
    const key = await createApiKey(h, project.id);
    const expected = { id: project.id, name: project.name, createdAt: project.createdAt.toISOString() };

    expect(await h.get(`/projects/${project.id}`, { token: owner.accessToken })).toMatchObject({ status: 200, body: expected });
    expect(await h.get(`/projects/${project.id}`, { apiKey: key.key })).toMatchObject({ status: 200, body: expected });
    // A key acts on its own project only, whatever project the path names.
    const foreign = await h.get(`/projects/${other.id}`, { apiKey: key.key });
    expectError(foreign, 403);
    expect(foreign.text).not.toContain(other.name);
    expectError(await h.get(`/projects/${project.id}`, { token: (await h.user()).accessToken }), 404, 'Project not found');
    expectError(await h.get('/projects/not-a-uuid', { token: owner.accessToken }), 400);
  });
});

describe('DELETE /projects/{projectId}', () => {
  it('removes the project and everything in it', async () => {
    const owner = await h.user();
    const member = await h.user();
    const project = await createProject(h, owner);
    const survivor = await createProject(h, owner);
    const projectId = project.id;
    await addMember(h, projectId, member);
    const key = await createApiKey(h, projectId);
    await h.db.invite.create({ data: { projectId, email: `${unique('inv')}@example.test`, tokenHash: unique('hash'), expiresAt: new Date(Date.now() + 60_000) } });
    const template = await h.db.pushTemplate.create({ data: { projectId, name: 'welcome', title: 'Hi', body: 'Hello' } });
    await h.db.pushTemplate.create({ data: { projectId: survivor.id, name: 'welcome', title: 'Hi', body: 'Hello' } });
    await h.db.pushConfig.create({ data: { projectId } });
    await h.db.providerConfig.create({ data: { projectId, provider: 'fcm', name: 'main', priority: 1, config: { projectId: 'fb' }, secrets: 'sealed', keyId: 'k1' } });
    const device = await h.db.device.create({ data: { projectId, userId: 'customer-1', deviceToken: unique('tok'), provider: 'fcm', platform: 'android' } });
    const notification = await h.db.notification.create({ data: { projectId, templateId: template.id, userIds: ['customer-1'], variables: {} } });
    await h.db.delivery.create({ data: { notificationId: notification.id, userId: 'customer-1', deviceId: device.id, status: 'sent' } });

    const res = await h.delete(`/projects/${projectId}`, { token: owner.accessToken });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Project deleted' });

    const where = { projectId };
    expect(
      await Promise.all([
        h.db.project.count({ where: { id: projectId } }),
        h.db.projectMember.count({ where }),
        h.db.apiKey.count({ where }),
        h.db.invite.count({ where }),
        h.db.pushTemplate.count({ where }),
        h.db.pushConfig.count({ where }),
        h.db.providerConfig.count({ where }),
        h.db.device.count({ where }),
        h.db.notification.count({ where }),
        h.db.delivery.count({ where: { notificationId: notification.id } }),
      ]),
    ).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    // Other projects and the accounts themselves stay.
    expect(await h.db.pushTemplate.count({ where: { projectId: survivor.id } })).toBe(1);
    expect(await h.db.user.count({ where: { id: { in: [owner.id, member.id] } } })).toBe(2);
    // The project's key is dead, and the project is gone for its former members.
    expectError(await h.get(`/projects/${projectId}`, { apiKey: key.key }), 401, 'Invalid API key');
    expectError(await h.get(`/projects/${projectId}/team`, { token: member.accessToken }), 404);
    expectError(await h.delete(`/projects/${projectId}`, { token: owner.accessToken }), 404);
  });
});

describe('team', () => {
  it('GET /projects/{projectId}/team lists every member for any member', async () => {
    const owner = await h.user({ firstName: 'Olga', lastName: 'Owner' });
    const member = await h.user({ firstName: 'Tim', lastName: 'Member' });
    const project = await createProject(h, owner);
    await addMember(h, project.id, member);

    const res = await h.get(`/projects/${project.id}/team`, { token: member.accessToken });
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(2);
    expect(res.body).toEqual(expect.arrayContaining([
      { userId: owner.id, email: owner.email, firstName: 'Olga', lastName: 'Owner', role: 'project_admin', isOwner: true, joinedAt: expect.stringMatching(ISO) },
      { userId: member.id, email: member.email, firstName: 'Tim', lastName: 'Member', role: 'team_member', isOwner: false, joinedAt: expect.stringMatching(ISO) },
    ]));
    expect(res.text).not.toMatch(/password/i);
    expectError(await h.get(`/projects/${project.id}/team`, { token: (await h.user()).accessToken }), 404, 'Project not found');
  });

  it('DELETE /projects/{projectId}/members/{userId} removes a member (200)', async () => {
    const owner = await h.user();
    const admin = await h.user();
    const member = await h.user();
    const project = await createProject(h, owner);
    await addMember(h, project.id, admin, 'project_admin');
    await addMember(h, project.id, member);

    const res = await h.delete(`/projects/${project.id}/members/${member.id}`, { token: admin.accessToken });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Member removed' });
    expect(await h.db.projectMember.count({ where: { projectId: project.id, userId: member.id } })).toBe(0);
    // The former member has lost the project.
    expectError(await h.get(`/projects/${project.id}/team`, { token: member.accessToken }), 404);
    expect((await h.get('/projects', { token: member.accessToken })).body).toEqual([]);
  });
});
