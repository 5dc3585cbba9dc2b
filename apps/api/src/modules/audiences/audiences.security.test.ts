import { addMember, expectError, startApi, tenant, unique, type Harness, type Session, type Tenant } from '@herald/testing';

/** Segments and counts: roles (members read, project admins write), credentials and tenancy. */
let h: Harness;
let victim: Tenant;
let stranger: Tenant;
let member: Session;
let admin: Session;
let segmentId: string;
const filter = { field: 'platform', op: 'eq', value: 'ios' };

beforeAll(async () => {
  h = await startApi();
  victim = await tenant(h);
  stranger = await tenant(h);
  member = await h.user();
  admin = await h.user();
  await addMember(h, victim.project.id, member, 'team_member');
  await addMember(h, victim.project.id, admin, 'project_admin');
  segmentId = (await h.post(`/projects/${victim.project.id}/segments`, { token: victim.owner.accessToken, body: { name: 'victim segment', filter } })).body.id;
});
afterAll(() => h.close());

const segments = () => `/projects/${victim.project.id}/segments`;

describe('roles', () => {
  it('a team_member reads segments but writes none (403), and nothing changes', async () => {
    const token = member.accessToken;
    expect((await h.get(segments(), { token })).status).toBe(200);
    expect((await h.get(`${segments()}/${segmentId}`, { token })).status).toBe(200);
    for (const res of [
      await h.post(segments(), { token, body: { name: unique('mine'), filter } }),
      await h.put(`${segments()}/${segmentId}`, { token, body: { name: 'renamed' } }),
      await h.patch(`${segments()}/${segmentId}`, { token, body: { name: 'renamed' } }),
      await h.delete(`${segments()}/${segmentId}`, { token }),
    ]) {
      expectError(res, 403, 'This action requires the project_admin role');
    }
    expect(await h.db.segment.findUniqueOrThrow({ where: { id: segmentId } })).toMatchObject({ name: 'victim segment' });
    expect(await h.db.segment.count({ where: { projectId: victim.project.id } })).toBe(1);
  });

  it('a project_admin member writes them', async () => {
    const created = await h.post(segments(), { token: admin.accessToken, body: { name: unique('admin'), filter } });
    expect(created.status).toBe(201);
    expect((await h.delete(`${segments()}/${created.body.id}`, { token: admin.accessToken })).status).toBe(200);
  });

  it('segment routes take a JWT only: an API key, even the project’s own, is a 401', async () => {
    expectError(await h.get(segments(), { apiKey: victim.apiKey.key }), 401);
    expectError(await h.post(segments(), { apiKey: victim.apiKey.key, body: { name: 'k', filter } }), 401);
  });
});

describe('tenancy', () => {
  it("a stranger gets 404 for the victim's segments, and the victim's segment id under their own project is unknown too", async () => {
    const token = stranger.owner.accessToken;
    expectError(await h.get(segments(), { token }), 404, 'Project not found');
    expectError(await h.get(`${segments()}/${segmentId}`, { token }), 404);
    expectError(await h.put(`${segments()}/${segmentId}`, { token, body: { name: 'mine now' } }), 404);
    const own = `/projects/${stranger.project.id}/segments/${segmentId}`;
    expectError(await h.get(own, { token }), 404, 'Segment not found');
    expectError(await h.patch(own, { token, body: { name: 'mine now' } }), 404, 'Segment not found');
    expectError(await h.delete(own, { token }), 404, 'Segment not found');
    expect((await h.get(`/projects/${stranger.project.id}/segments`, { token })).body).toEqual([]);
    expect(await h.db.segment.findUniqueOrThrow({ where: { id: segmentId } })).toMatchObject({ name: 'victim segment', projectId: victim.project.id });
  });

  it("count: another project's segment is a 404 like an unknown one; a key naming another project a 403; a stranger's JWT a 404", async () => {
    expectError(await h.post('/push/audience/count', { apiKey: stranger.apiKey.key, body: { segmentId } }), 404, 'Segment not found');
    expectError(await h.post('/push/audience/count', { token: stranger.owner.accessToken, query: { projectId: stranger.project.id }, body: { segmentId } }), 404, 'Segment not found');
    expectError(await h.post('/push/audience/count', { apiKey: stranger.apiKey.key, query: { projectId: victim.project.id }, body: { all: true } }), 403);
    expectError(await h.post('/push/audience/count', { token: stranger.owner.accessToken, query: { projectId: victim.project.id }, body: { all: true } }), 404);
  });

  it("count sees the caller's project only", async () => {
    await h.post('/push/register-device', { apiKey: victim.apiKey.key, body: { userId: 'v', deviceToken: unique('tok'), provider: 'fcm', platform: 'ios' } });
    expect((await h.post('/push/audience/count', { apiKey: stranger.apiKey.key, body: { all: true } })).body).toEqual({ devices: 0, users: 0, byPlatform: { android: 0, ios: 0, web: 0 } });
  });

  it('count needs credentials', async () => {
    expectError(await h.post('/push/audience/count', { body: { all: true } }), 401);
    expectError(await h.post('/push/audience/count', { apiKey: 'hk_nope', body: { all: true } }), 401, 'Invalid API key');
  });
});
