import { attributeSteps } from './test-helpers/attribute-steps';
import { createApiKey, expectError, startApi, tenant, unique, type ApiResponse, type Harness, type Tenant } from '@herald/testing';

/** Device attributes: every bad value is a 400 whose details name the field, and nothing is written. */
let h: Harness;
let t: Tenant;
beforeAll(async () => {
  h = await startApi();
  t = await tenant(h);
});
afterAll(() => h.close());

const { register, device, patchUser, patchUsers, stored } = attributeSteps(() => h);
const key = () => ({ apiKey: t.apiKey.key });
const paths = (res: ApiResponse) => (res.body.details as { path: string }[]).map((d) => d.path);
const fiftyTags = () => Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`t${i}`, i]));

/** Each bad attribute, the path its 400 names, and the message. */
const BAD: [string, Record<string, unknown>, string, RegExp][] = [
  ['a tag key with a space', { tags: { 'bad key': 1 } }, 'tags.bad key', /tag key/],
  ['a tag key of 65 characters', { tags: { ['k'.repeat(65)]: 1 } }, `tags.${'k'.repeat(65)}`, /tag key/],
  ['an empty tag key', { tags: { '': 1 } }, 'tags.', /tag key/],
  ['a tag key __proto__', { tags: JSON.parse('{"__proto__": "x"}') }, 'tags.__proto__', /tag key/],
  ['a tag string of 257 characters', { tags: { plan: 'x'.repeat(257) } }, 'tags.plan', /at most 256/],
  ['a tag object', { tags: { plan: { tier: 1 } } }, 'tags.plan', /string, a finite number or a boolean/],
  ['a tag list', { tags: { plan: ['pro'] } }, 'tags.plan', /string, a finite number or a boolean/],
  ['51 tags', { tags: { ...fiftyTags(), one: 'more' } }, 'tags', /at most 50 tags \(51 given\)/],
  ['tags that are no object', { tags: 'plan=pro' }, 'tags', /object/],
  ['an unknown time zone', { timezone: 'Mars/Olympus_Mons' }, 'timezone', /IANA time zone/],
  ['an offset for a zone', { timezone: '+02:00' }, 'timezone', /IANA time zone/],
  ['a zone that is no string', { timezone: 1 }, 'timezone', /string/],
  ['a locale with an underscore', { locale: 'en_US' }, 'locale', /BCP 47/],
  ['an empty locale', { locale: '' }, 'locale', /BCP 47/],
  ['an appVersion of 33 characters', { appVersion: '1.'.repeat(16) + '1' }, 'appVersion', /at most 32/],
  ['an empty appVersion', { appVersion: ' ' }, 'appVersion', /empty/],
];

describe('register-device', () => {
  it.each(BAD)('%s: 400 naming the field, nothing registered', async (_label, attributes, path, message) => {
    const body = device(attributes);
    const res = await register(body, key());
    expectError(res, 400);
    expect(res.body.details).toContainEqual({ path, message: expect.stringMatching(message) });
    expect(await h.db.device.count({ where: { deviceToken: body.deviceToken } })).toBe(0);
  });

  it('every bad field at once', async () => {
    const res = await register(device({ tags: { 'no good': 1, plan: {} }, timezone: 'Nowhere', locale: 'x_y', appVersion: 'v'.repeat(40) }), key());
    expect(paths(res)).toEqual(['tags.no good', 'tags.plan', 'timezone', 'locale', 'appVersion']);
  });

  it('a merge that would leave 51 tags: 400 naming tags, the device unchanged', async () => {
    const body = device({ tags: fiftyTags(), timezone: 'UTC' });
    await register(body, key());
    const res = await register({ ...body, tags: { one: 'more' }, timezone: 'Europe/Paris' }, key());
    expectError(res, 400, /tags: a device holds at most 50 tags/);
    expect(res.body.details).toEqual([{ path: 'tags', message: expect.stringContaining('at most 50 tags') }]);
    expect(await stored(body.deviceToken)).toMatchObject({ tags: fiftyTags(), timezone: 'UTC' });
    // Replacing one tag by another in the same write stays within the bound.
    expect((await register({ ...body, tags: { t0: null, one: 'more' } }, key())).status).toBe(200);
  });
});

describe('PATCH /push/users/{userId}/attributes', () => {
  it.each(BAD)('%s: 400 naming the field, the devices unchanged', async (_label, attributes, path, message) => {
    const d = device({ tags: { plan: 'free' } });
    await register(d, key());
    const res = await patchUser(d.userId, attributes, key());
    expectError(res, 400);
    expect(res.body.details).toContainEqual({ path, message: expect.stringMatching(message) });
    expect((await stored(d.deviceToken)).tags).toEqual({ plan: 'free' });
  });

  it('nothing to set is a 400, not a silent 200', async () => {
    expectError(await patchUser('someone', {}, key()), 400, /Provide tags, timezone, locale or appVersion/);
    expectError(await patchUser('someone', { tag: { plan: 'pro' } }, key()), 400, /Provide tags/);
  });

  it('a merge that would overflow one device writes on none of the user’s devices', async () => {
    const userId = unique('cust');
    const full = device({ userId, tags: fiftyTags() });
    const empty = device({ userId });
    await register(full, key());
    await register(empty, key());
    const res = await patchUser(userId, { tags: { one: 'more' }, locale: 'de' }, key());
    expectError(res, 400, /at most 50 tags/);
    expect(paths(res)).toEqual(['tags']);
    expect(await stored(full.deviceToken)).toMatchObject({ tags: fiftyTags(), locale: null });
    expect(await stored(empty.deviceToken)).toMatchObject({ tags: {}, locale: null });
  });

  it('a user id over 255 characters is a 400', async () => {
    expectError(await patchUser('u'.repeat(256), { locale: 'de' }, key()), 400, /userId is too long/);
  });

  it('with a JWT, projectId is required', async () => {
    expectError(await patchUser('someone', { locale: 'de' }, { token: t.owner.accessToken }), 400, 'projectId query parameter is required');
  });
});

describe('POST /push/users/attributes', () => {
  it.each(BAD)('%s: 400 naming users.1.<field>, nothing written for the other users either', async (_label, attributes, path, message) => {
    const d = device();
    await register(d, key());
    const res = await patchUsers({ users: [{ userId: d.userId, locale: 'de' }, { userId: 'other', ...attributes }] }, key());
    expectError(res, 400);
    expect(res.body.details).toContainEqual({ path: `users.1.${path}`, message: expect.stringMatching(message) });
    expect((await stored(d.deviceToken)).locale).toBeNull();
  });

  it.each<[string, unknown, string, RegExp]>([
    ['no users', { users: [] }, 'users', /at least one user/],
    ['1,001 users', { users: Array.from({ length: 1001 }, (_, i) => ({ userId: `u${i}`, locale: 'de' })) }, 'users', /at most 1000 users/],
    ['users that are no list', { users: { userId: 'a', locale: 'de' } }, 'users', /array/],
    ['a user twice', { users: [{ userId: 'a', locale: 'de' }, { userId: 'b', locale: 'de' }, { userId: 'a', locale: 'fr' }] }, 'users.2.userId', /the same user as users.0/],
    ['a user with nothing to set', { users: [{ userId: 'a', locale: 'de' }, { userId: 'b' }] }, 'users.1', /Provide tags/],
    ['a user without a userId', { users: [{ locale: 'de' }] }, 'users.0.userId', /userId/],
    ['no body', {}, 'users', /array/],
  ])('%s: 400 naming %s', async (_label, body, path, message) => {
    const res = await patchUsers(body, key());
    expectError(res, 400);
    expect(res.body.details).toContainEqual({ path, message: expect.stringMatching(message) });
  });

  it('a merge that would overflow a device of one user: 400 naming users.<i>.tags, nothing written', async () => {
    const ok = device();
    const full = device({ tags: fiftyTags() });
    await register(ok, key());
    await register(full, key());
    const res = await patchUsers({ users: [{ userId: ok.userId, tags: { plan: 'pro' } }, { userId: full.userId, tags: { one: 'more' } }] }, key());
    expectError(res, 400, /users.1.tags: a device holds at most 50 tags/);
    expect(paths(res)).toEqual(['users.1.tags']);
    expect((await stored(ok.deviceToken)).tags).toEqual({});
    expect((await stored(full.deviceToken)).tags).toEqual(fiftyTags());
  });
});

describe('rate limits', () => {
  it.each([
    ['PATCH /push/users/{userId}/attributes', 'RATE_LIMIT_USER_ATTRIBUTES', (lh: Harness, apiKey: string) => lh.patch('/push/users/u1/attributes', { apiKey, body: { locale: 'de' } })],
    ['POST /push/users/attributes', 'RATE_LIMIT_USER_ATTRIBUTES_BULK', (lh: Harness, apiKey: string) => lh.post('/push/users/attributes', { apiKey, body: { users: [{ userId: 'u1', locale: 'de' }] } })],
    ['POST /push/audience/count', 'RATE_LIMIT_AUDIENCE_COUNT', (lh: Harness, apiKey: string) => lh.post('/push/audience/count', { apiKey, body: { all: true } })],
  ])('%s: per credential (%s), then 429 with Retry-After', async (_route, setting, call) => {
    const limited = await startApi({ [setting]: '3', QUEUE_PREFIX: `${h.config.queuePrefix}-rl-${unique()}` });
    try {
      const apiKey = (await createApiKey(limited, t.project.id)).key;
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await call(limited, apiKey)).status);
      expect(statuses).toEqual([200, 200, 200]);
      const over = await call(limited, apiKey);
      expectError(over, 429);
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(over.headers.get('ratelimit-policy')).toMatch(/q=3/);
      expect((await call(limited, (await createApiKey(limited, t.project.id)).key)).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
