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
    expect((await h.get(path, { token })).body).toEqual({ defaultTimezone: 'UTC', quietHours: null, deliveryIdInData: true, updatedAt: null });

    const put = await h.put(path, { token, body: { defaultTimezone: 'europe/berlin', quietHours: { start: '22:00', end: '08:00' } } });
    expect(put.status).toBe(200);
    // The zone is stored in its canonical spelling.
    expect(put.body).toEqual({ defaultTimezone: 'Europe/Berlin', quietHours: { start: '22:00', end: '08:00' }, deliveryIdInData: true, updatedAt: expect.any(String) });

    const zoneOnly = await h.put(path, { token, body: { defaultTimezone: 'America/New_York' } });
    expect(zoneOnly.body).toMatchObject({ defaultTimezone: 'America/New_York', quietHours: { start: '22:00', end: '08:00' } });
    const cleared = await h.put(path, { token, body: { quietHours: null } });
    expect(cleared.body).toMatchObject({ defaultTimezone: 'America/New_York', quietHours: null });
    expect((await h.get(path, { token })).body).toEqual(cleared.body);
    expect(await h.db.projectSettings.count({ where: { projectId: t.project.id } })).toBe(1);
  });

  it('turns the delivery id in messages off and on, each change audited from what it was', async () => {
    const t = await tenant(h);
    const path = `/projects/${t.project.id}/settings`;
    const token = t.owner.accessToken;
    const off = await h.put(path, { token, body: { deliveryIdInData: false } });
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ defaultTimezone: 'UTC', quietHours: null, deliveryIdInData: false, updatedAt: expect.any(String) });
    expect((await h.get(path, { token })).body.deliveryIdInData).toBe(false);
    // Another field leaves it as it is.
    expect((await h.put(path, { token, body: { defaultTimezone: 'Asia/Tokyo' } })).body.deliveryIdInData).toBe(false);
    expect((await h.put(path, { token, body: { deliveryIdInData: true } })).body.deliveryIdInData).toBe(true);

    const entries = await h.db.auditEntry.findMany({ where: { projectId: t.project.id, action: 'settings.updated' }, orderBy: { number: 'asc' } });
    expect(entries.map((e) => e.changes)).toEqual([
      { deliveryIdInData: { before: true, after: false } },
      { defaultTimezone: { before: 'UTC', after: 'Asia/Tokyo' } },
      { deliveryIdInData: { before: false, after: true } },
    ]);
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
