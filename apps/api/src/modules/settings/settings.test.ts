import { addMember, startApi, tenant, type Harness } from '@herald/testing';

/** Project settings: what the endpoints do when used as intended. Refusals are in settings.errors.test.ts. */

let h: Harness;
beforeAll(async () => {
  h = await startApi();
});
afterAll(() => h.close());

describe('GET/PUT /projects/{projectId}/settings', () => {
  it('starts at the defaults, and a PUT changes only the fields it sends', async () => {
    const t = await tenant(h);
    const path = `/projects/${t.project.id}/settings`;
    const token = t.owner.accessToken;
    expect((await h.get(path, { token })).body).toEqual({ defaultTimezone: 'UTC', quietHours: null, updatedAt: null });

    const put = await h.put(path, { token, body: { defaultTimezone: 'europe/berlin', quietHours: { start: '22:00', end: '08:00' } } });
    expect(put.status).toBe(200);
    // The zone is stored in its canonical spelling.
    expect(put.body).toEqual({ defaultTimezone: 'Europe/Berlin', quietHours: { start: '22:00', end: '08:00' }, updatedAt: expect.any(String) });

    const zoneOnly = await h.put(path, { token, body: { defaultTimezone: 'America/New_York' } });
    expect(zoneOnly.body).toMatchObject({ defaultTimezone: 'America/New_York', quietHours: { start: '22:00', end: '08:00' } });
    const cleared = await h.put(path, { token, body: { quietHours: null } });
    expect(cleared.body).toMatchObject({ defaultTimezone: 'America/New_York', quietHours: null });
    expect((await h.get(path, { token })).body).toEqual(cleared.body);
    expect(await h.db.projectSettings.count({ where: { projectId: t.project.id } })).toBe(1);
  });

  it('members read them, only project admins write them', async () => {
    const t = await tenant(h);
    const member = await h.user();
    await addMember(h, t.project.id, member, 'team_member');
    const path = `/projects/${t.project.id}/settings`;
    expect((await h.get(path, { token: member.accessToken })).status).toBe(200);
    const denied = await h.put(path, { token: member.accessToken, body: { defaultTimezone: 'Asia/Tokyo' } });
    expect(denied.status).toBe(403);
    expect((await h.get(path, { token: t.owner.accessToken })).body.defaultTimezone).toBe('UTC');
  });
});
