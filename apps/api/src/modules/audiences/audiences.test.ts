import { addMember, startApi, tenant, unique, type Harness, type Tenant } from '@herald/testing';

/**
 * Segments and audience counts used as intended. Refusals are in audiences.errors.test.ts, roles and
 * tenancy in audiences.security.test.ts; every operator of the filter language against Postgres in
 * packages/db/src/audience-sql.test.ts.
 */
let h: Harness;
let t: Tenant;
let member: Awaited<ReturnType<Harness['user']>>;
beforeAll(async () => {
  h = await startApi();
  t = await tenant(h);
  member = await h.user();
  await addMember(h, t.project.id, member);
});
afterAll(() => h.close());

const segments = () => `/projects/${t.project.id}/segments`;
const owner = () => ({ token: t.owner.accessToken });
const proIos = { and: [{ field: 'platform', op: 'eq', value: 'ios' }, { field: 'tags.plan', op: 'eq', value: 'pro' }] };

describe('segments', () => {
  it('create (201), read one and all, change with PUT and PATCH, delete', async () => {
    const created = await h.post(segments(), { ...owner(), body: { name: '  Pro iOS  ', filter: proIos } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      projectId: t.project.id,
      name: 'Pro iOS',
      description: null,
      filter: proIos,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const id = created.body.id;
    expect((await h.get(`${segments()}/${id}`, owner())).body).toEqual(created.body);
    expect((await h.get(segments(), owner())).body).toContainEqual(created.body);

    const put = await h.put(`${segments()}/${id}`, { ...owner(), body: { name: 'Pro on iOS', description: 'Paying iPhone users' } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ id, name: 'Pro on iOS', description: 'Paying iPhone users', filter: proIos });
    const recent = { field: 'lastSeenAt', op: 'gte', value: { within: '30d' } };
    const patched = await h.patch(`${segments()}/${id}`, { ...owner(), body: { filter: recent, description: null } });
    expect(patched.body).toMatchObject({ id, name: 'Pro on iOS', description: null, filter: recent });
    expect(new Date(patched.body.updatedAt).getTime()).toBeGreaterThanOrEqual(new Date(created.body.updatedAt).getTime());

    const deleted = await h.delete(`${segments()}/${id}`, owner());
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ message: 'Segment deleted' });
    expect((await h.get(`${segments()}/${id}`, owner())).status).toBe(404);
  });

  it('lists oldest first; a team member reads them', async () => {
    const first = await h.post(segments(), { ...owner(), body: { name: unique('first'), filter: { field: 'platform', op: 'eq', value: 'web' } } });
    const second = await h.post(segments(), { ...owner(), body: { name: unique('second'), description: 'd', filter: { field: 'platform', op: 'eq', value: 'ios' } } });
    const list = await h.get(segments(), { token: member.accessToken });
    expect(list.status).toBe(200);
    const ids = list.body.map((s: { id: string }) => s.id);
    expect(ids.indexOf(first.body.id)).toBeLessThan(ids.indexOf(second.body.id));
    expect((await h.get(`${segments()}/${second.body.id}`, { token: member.accessToken })).body.description).toBe('d');
  });

  it('the same name in two projects is fine; a name freed by a rename or a delete can be taken again', async () => {
    const other = await tenant(h);
    const name = unique('shared');
    const filter = { field: 'platform', op: 'eq', value: 'web' };
    expect((await h.post(segments(), { ...owner(), body: { name, filter } })).status).toBe(201);
    expect((await h.post(`/projects/${other.project.id}/segments`, { token: other.owner.accessToken, body: { name, filter } })).status).toBe(201);
    const mine = (await h.get(segments(), owner())).body.find((s: { name: string }) => s.name === name);
    await h.patch(`${segments()}/${mine.id}`, { ...owner(), body: { name: `${name}-renamed` } });
    expect((await h.post(segments(), { ...owner(), body: { name, filter } })).status).toBe(201);
  });
});

describe('POST /push/audience/count', () => {
  let counted: Tenant;
  const register = (userId: string, platform: string, extra: Record<string, unknown> = {}) =>
    h.post('/push/register-device', { apiKey: counted.apiKey.key, body: { userId, deviceToken: unique('tok'), provider: 'fcm', platform, ...extra } });

  beforeAll(async () => {
    counted = await tenant(h);
    await register('ann', 'ios', { tags: { plan: 'pro' }, appVersion: '10.0' });
    await register('ann', 'android', { tags: { plan: 'pro' }, appVersion: '9.2' });
    await register('bob', 'ios', { tags: { plan: 'free' }, appVersion: '10.1' });
    await register('cid', 'web', { tags: { plan: 'pro' } });
    await register('dee', 'ios');
  });
  const count = (body: unknown, auth: { apiKey?: string; token?: string; projectId?: string } = { apiKey: counted.apiKey.key }) =>
    h.post('/push/audience/count', { apiKey: auth.apiKey, token: auth.token, query: auth.projectId ? { projectId: auth.projectId } : undefined, body });

  it('all: every device of the project, its users, per platform', async () => {
    const res = await count({ all: true });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ devices: 5, users: 4, byPlatform: { android: 1, ios: 3, web: 1 } });
  });

  it('a filter', async () => {
    expect((await count({ filter: { field: 'tags.plan', op: 'eq', value: 'pro' } })).body).toEqual({ devices: 3, users: 2, byPlatform: { android: 1, ios: 1, web: 1 } });
    expect((await count({ filter: { field: 'appVersion', op: 'gte', value: '10' } })).body).toEqual({ devices: 2, users: 2, byPlatform: { android: 0, ios: 2, web: 0 } });
    expect((await count({ filter: { not: { field: 'tags.plan', op: 'exists' } } })).body).toEqual({ devices: 1, users: 1, byPlatform: { android: 0, ios: 1, web: 0 } });
    expect((await count({ filter: { field: 'lastSeenAt', op: 'lt', value: { within: '1h' } } })).body.devices).toBe(0);
  });

  it('a segment, with a JWT and the projectId query; a team member may count', async () => {
    const reader = await h.user();
    await addMember(h, counted.project.id, reader);
    const segment = await h.post(`/projects/${counted.project.id}/segments`, { token: counted.owner.accessToken, body: { name: 'pro ios', filter: proIos } });
    const res = await count({ segmentId: segment.body.id }, { token: reader.accessToken, projectId: counted.project.id });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ devices: 1, users: 1, byPlatform: { android: 0, ios: 1, web: 0 } });
    expect(await count({ segmentId: segment.body.id.toUpperCase() })).toMatchObject({ status: 200, body: res.body });
  });

  it('follows the devices: a new registration counts at once', async () => {
    const before = (await count({ filter: { field: 'userId', op: 'eq', value: 'eve' } })).body.devices;
    await register('eve', 'android');
    expect((await count({ filter: { field: 'userId', op: 'eq', value: 'eve' } })).body.devices).toBe(before + 1);
  });
});
