import { appVersionKey } from '@herald/core';
import { attributeSteps } from './test-helpers/attribute-steps';
import { addMember, startApi, tenant, unique, type Harness, type Tenant } from '@herald/testing';

/**
 * Device attributes used as intended: set at registration, merged on re-registration, set for a
 * user's devices or for many users at once, and returned wherever devices are. Refusals are in
 * attributes.errors.test.ts, credentials and tenancy in attributes.security.test.ts.
 */
let h: Harness;
let t: Tenant;
beforeAll(async () => {
  h = await startApi();
  t = await tenant(h);
});
afterAll(() => h.close());

const { register, device, patchUser, patchUsers, stored } = attributeSteps(() => h);
const key = () => ({ apiKey: t.apiKey.key });

describe('register-device with attributes', () => {
  it('stores and answers them, zone and locale in their canonical spelling, the version with its sort key', async () => {
    const body = device({ tags: { plan: 'pro', seats: 3, trial: false }, timezone: 'europe/berlin', locale: 'en-us', appVersion: ' 2.14.1 ' });
    const res = await register(body, key());
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ tags: { plan: 'pro', seats: 3, trial: false }, timezone: 'Europe/Berlin', locale: 'en-US', appVersion: '2.14.1' });
    const row = await stored(body.deviceToken);
    expect(row).toMatchObject({ tags: { plan: 'pro', seats: 3, trial: false }, timezone: 'Europe/Berlin', locale: 'en-US', appVersion: '2.14.1', appVersionKey: appVersionKey('2.14.1') });
  });

  it('accepts UTC and the aliases the runtime knows; a version that is no version is kept as sent, without a key', async () => {
    for (const [timezone, kept] of [['UTC', 'UTC'], ['Etc/UTC', 'Etc/UTC'], ['US/Eastern', 'US/Eastern'], ['Asia/Kolkata', expect.any(String)]] as const) {
      const res = await register(device({ timezone, appVersion: 'nightly (77)' }), key());
      expect([timezone, res.status, res.body.timezone]).toEqual([timezone, 201, kept]);
    }
    const body = device({ appVersion: 'nightly (77)' });
    await register(body, key());
    expect(await stored(body.deviceToken)).toMatchObject({ appVersion: 'nightly (77)', appVersionKey: null });
  });

  it('a re-registration merges tags (null removes a key) and keeps attributes it does not name; null clears one', async () => {
    const body = device({ tags: { plan: 'pro', seats: 3 }, timezone: 'Europe/Berlin', locale: 'de-DE', appVersion: '1.0' });
    await register(body, key());
    const again = await register({ ...device(), userId: body.userId, deviceToken: body.deviceToken, tags: { plan: 'team', beta: true, seats: null }, locale: null }, key());
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ tags: { plan: 'team', beta: true }, timezone: 'Europe/Berlin', locale: null, appVersion: '1.0' });
    expect(again.body.tags).not.toHaveProperty('seats');
  });

  it('a re-registration without attributes changes none of them, nor updatedAt', async () => {
    const body = device({ tags: { plan: 'pro' }, timezone: 'UTC', appVersion: '3.0' });
    const first = await register(body, key());
    const again = await register({ userId: body.userId, deviceToken: body.deviceToken, provider: 'fcm', platform: 'android' }, key());
    expect(again.body).toMatchObject({ tags: { plan: 'pro' }, timezone: 'UTC', appVersion: '3.0', updatedAt: first.body.updatedAt });
    const changed = await register({ ...body, appVersion: '3.1' }, key());
    expect(changed.body.appVersion).toBe('3.1');
    expect(new Date(changed.body.updatedAt).getTime()).toBeGreaterThan(new Date(first.body.updatedAt).getTime());
  });

  it("a token that moves to another user keeps none of the previous user's tags, but its device attributes", async () => {
    const body = device({ tags: { plan: 'pro', country: 'de' }, timezone: 'Europe/Berlin', appVersion: '5.0' });
    await register(body, key());
    const moved = await register({ ...body, userId: unique('new-owner'), tags: { country: 'fr' } }, key());
    expect(moved.body).toMatchObject({ tags: { country: 'fr' }, timezone: 'Europe/Berlin', appVersion: '5.0' });
    const movedBare = await register({ userId: unique('third-owner'), deviceToken: body.deviceToken, provider: 'fcm', platform: 'android' }, key());
    expect(movedBare.body.tags).toEqual({});
  });

  it('GET /push/devices/{userId} returns the stored attributes', async () => {
    const body = device({ tags: { plan: 'pro' }, locale: 'pt-BR' });
    await register(body, key());
    const res = await h.get(`/push/devices/${body.userId}`, { token: t.owner.accessToken, query: { projectId: t.project.id } });
    expect(res.body).toEqual([expect.objectContaining({ tags: { plan: 'pro' }, timezone: null, locale: 'pt-BR', appVersion: null })]);
  });
});

describe('PATCH /push/users/{userId}/attributes', () => {
  it("sets them on every device of the user, and on no one else's; answers the devices in registration order", async () => {
    const userId = unique('cust');
    const phone = device({ userId, tags: { plan: 'free', keep: 'me' } });
    const tablet = device({ userId, platform: 'ios' });
    const someoneElse = device({ tags: { plan: 'free' } });
    for (const d of [phone, tablet, someoneElse]) await register(d, key());
    const res = await patchUser(userId, { tags: { plan: 'pro', seats: 5 }, timezone: 'America/New_York', appVersion: '10.0' }, key());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      userId,
      updated: 2,
      devices: [
        expect.objectContaining({ deviceToken: phone.deviceToken, tags: { plan: 'pro', keep: 'me', seats: 5 }, timezone: 'America/New_York', appVersion: '10.0' }),
        expect.objectContaining({ deviceToken: tablet.deviceToken, tags: { plan: 'pro', seats: 5 }, timezone: 'America/New_York', appVersion: '10.0' }),
      ],
    });
    expect((await stored(tablet.deviceToken)).appVersionKey).toBe(appVersionKey('10.0'));
    expect((await stored(someoneElse.deviceToken)).tags).toEqual({ plan: 'free' });
  });

  it('null removes a tag and clears an attribute; lastSeenAt is the device’s and stays; updatedAt moves only on a change', async () => {
    const d = device({ tags: { plan: 'pro', seats: 2 }, timezone: 'UTC', locale: 'en-US' });
    const first = (await register(d, key())).body;
    const res = await patchUser(d.userId, { tags: { seats: null }, locale: null }, key());
    expect(res.body.devices[0]).toMatchObject({ tags: { plan: 'pro' }, timezone: 'UTC', locale: null, lastSeenAt: first.lastSeenAt });
    const changedAt = res.body.devices[0].updatedAt;
    expect(new Date(changedAt).getTime()).toBeGreaterThan(new Date(first.updatedAt).getTime());
    const same = await patchUser(d.userId, { tags: { plan: 'pro' }, timezone: 'UTC' }, key());
    expect(same.body.devices[0].updatedAt).toBe(changedAt);
  });

  it('a user without devices: 200 with nothing updated (attributes live on devices)', async () => {
    const res = await patchUser('nobody-here', { tags: { plan: 'pro' } }, key());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ userId: 'nobody-here', updated: 0, devices: [] });
  });

  it('works with a JWT and the projectId query; a team member may', async () => {
    const member = await h.user();
    await addMember(h, t.project.id, member);
    const d = device();
    await register(d, key());
    const res = await patchUser(d.userId, { tags: { via: 'dashboard' } }, { token: member.accessToken, projectId: t.project.id });
    expect(res.status).toBe(200);
    expect(res.body.devices[0].tags).toEqual({ via: 'dashboard' });
  });

  it('a user id with characters that need encoding in the path', async () => {
    const d = device({ userId: 'user/42 ü?#' });
    await register(d, key());
    expect((await patchUser(d.userId, { locale: 'de' }, key())).body).toMatchObject({ userId: 'user/42 ü?#', updated: 1 });
  });
});

describe('POST /push/users/attributes', () => {
  it('sets each user’s attributes on their devices and answers the count per user, in request order', async () => {
    const [a, b, c] = [unique('a'), unique('b'), unique('c')];
    for (const d of [device({ userId: a }), device({ userId: a, platform: 'web' }), device({ userId: b, tags: { old: 1 } })]) await register(d, key());
    const res = await patchUsers({ users: [{ userId: b, tags: { plan: 'team', old: null } }, { userId: c, timezone: 'UTC' }, { userId: a, tags: { plan: 'pro' }, locale: 'fr-FR', appVersion: '9.2' }] }, key());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ updated: 3, users: [{ userId: b, updated: 1 }, { userId: c, updated: 0 }, { userId: a, updated: 2 }] });
    const rows = await h.db.device.findMany({ where: { projectId: t.project.id, userId: { in: [a, b] } }, orderBy: { userId: 'asc' } });
    expect(rows.map((r) => [r.userId, r.tags, r.locale, r.appVersion, r.appVersionKey])).toEqual([
      [a, { plan: 'pro' }, 'fr-FR', '9.2', appVersionKey('9.2')],
      [a, { plan: 'pro' }, 'fr-FR', '9.2', appVersionKey('9.2')],
      [b, { plan: 'team' }, null, null, null],
    ]);
  });

  it('takes 1,000 users in one call', async () => {
    const users = Array.from({ length: 1000 }, (_, i) => ({ userId: `bulk-${i}`, tags: { n: i } }));
    const d = device({ userId: 'bulk-999' });
    await register(d, key());
    const res = await patchUsers({ users }, { token: t.owner.accessToken, projectId: t.project.id });
    expect(res.status).toBe(200);
    expect(res.body.updated).toBe(1);
    expect(res.body.users).toHaveLength(1000);
    expect(res.body.users[999]).toEqual({ userId: 'bulk-999', updated: 1 });
    expect((await stored(d.deviceToken)).tags).toEqual({ n: 999 });
  });
});
