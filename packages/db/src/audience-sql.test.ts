import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { AppError, appVersionKey, type AudienceFilter } from '@herald/core';
import { audienceCountStatement, audiencePageStatement, audienceSelectStatement, toAudienceCount } from './audience-sql';

/**
 * Every operator and combinator of the filter language, compiled and run against a real Postgres
 * over a handful of devices whose attributes cover the edge cases: missing tags and attributes, a
 * tag holding a number in one device and a string in another, versions that only compare right as
 * versions, times either side of a relative bound. Another project's device matches every filter and
 * must never appear.
 */
const client = new Client({ connectionString: process.env.DATABASE_URL });
const projectId = randomUUID();
const otherProjectId = randomUUID();
const NOW = new Date('2026-11-27T12:00:00.000Z');
const ago = (ms: number) => new Date(NOW.getTime() - ms);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

interface Seed {
  name: string;
  userId: string;
  platform: 'android' | 'ios' | 'web';
  tags: Record<string, string | number | boolean>;
  timezone: string | null;
  locale: string | null;
  appVersion: string | null;
  createdAt: Date;
  lastSeenAt: Date;
}

const DEVICES: Seed[] = [
  { name: 'a', userId: 'u1', platform: 'android', tags: { plan: 'pro', score: 10, beta: true, name: 'alice' }, timezone: 'Europe/Berlin', locale: 'de-DE', appVersion: '10.0', createdAt: ago(100 * DAY), lastSeenAt: ago(1 * DAY) },
  { name: 'b', userId: 'u1', platform: 'ios', tags: { plan: 'free', score: 2.5, name: 'bob' }, timezone: 'America/New_York', locale: 'en-US', appVersion: '9.2', createdAt: ago(40 * DAY), lastSeenAt: ago(10 * DAY) },
  { name: 'c', userId: 'u2', platform: 'web', tags: { plan: 'pro', score: '10', beta: false }, timezone: null, locale: null, appVersion: '1.2.10', createdAt: ago(5 * DAY), lastSeenAt: ago(40 * DAY) },
  { name: 'd', userId: 'u3', platform: 'ios', tags: {}, timezone: 'UTC', locale: 'en-GB', appVersion: '1.2.9', createdAt: ago(2 * DAY), lastSeenAt: ago(2 * HOUR) },
  { name: 'e', userId: 'u4', platform: 'android', tags: { plan: 5, name: 'Zed' }, timezone: 'Asia/Calcutta', locale: 'pt-BR', appVersion: '2.0.0-beta.1', createdAt: ago(400 * DAY), lastSeenAt: ago(31 * DAY) },
  { name: 'f', userId: 'u5', platform: 'android', tags: { name: 'émile' }, timezone: null, locale: 'en-US', appVersion: 'build-77', createdAt: ago(1 * DAY), lastSeenAt: ago(0) },
  { name: 'g', userId: 'u5', platform: 'ios', tags: { plan: 'team' }, timezone: 'Europe/Berlin', locale: null, appVersion: '2.0.0', createdAt: ago(20 * DAY), lastSeenAt: ago(29 * DAY) },
  { name: 'h', userId: 'u6', platform: 'web', tags: { plan: 'pro' }, timezone: null, locale: null, appVersion: null, createdAt: ago(3 * DAY), lastSeenAt: ago(3 * DAY) },
];
const ALL = DEVICES.map((d) => d.name).join('');

async function insert(project: string, d: Seed) {
  await client.query(
    `INSERT INTO "Device" ("id", "projectId", "userId", "deviceToken", "provider", "platform", "tags", "timezone", "locale", "appVersion", "appVersionKey", "createdAt", "updatedAt", "lastSeenAt")
     VALUES (gen_random_uuid(), $1, $2, $3, 'fcm', $4, $5, $6, $7, $8, $9, $10, $10, $11)`,
    [project, d.userId, d.name, d.platform, JSON.stringify(d.tags), d.timezone, d.locale, d.appVersion, d.appVersion && appVersionKey(d.appVersion), d.createdAt, d.lastSeenAt],
  );
}

beforeAll(async () => {
  await client.connect();
  const ownerId = randomUUID();
  await client.query(`INSERT INTO "User" ("id", "email", "passwordHash", "firstName", "lastName", "updatedAt") VALUES ($1, $2, 'x', 'A', 'B', now())`, [ownerId, `${ownerId}@example.test`]);
  for (const id of [projectId, otherProjectId]) await client.query(`INSERT INTO "Project" ("id", "name", "ownerId", "updatedAt") VALUES ($1, 'audience', $2, now())`, [id, ownerId]);
  for (const d of DEVICES) await insert(projectId, d);
  // Matches everything the filters below ask for, in another project.
  await insert(otherProjectId, { ...DEVICES[0], name: 'x', tags: { plan: 'pro', score: 10, name: 'alice', beta: true, extra: 'x' } });
});
afterAll(() => client.end());

/** The names of the devices the filter selects, in name order. */
async function matching(filter: AudienceFilter | undefined): Promise<string> {
  const { rows } = await client.query<{ deviceToken: string }>(audiencePageStatement(projectId, filter, { limit: 100, columns: ['deviceToken'], now: NOW }));
  return rows
    .map((r) => r.deviceToken)
    .sort()
    .join('');
}

const c = (field: string, op: string, value?: unknown) => ({ field, op, ...(value === undefined ? {} : { value }) }) as AudienceFilter;

describe.each<[string, AudienceFilter, string]>([
  // platform and userId: columns every device has
  ['platform eq', c('platform', 'eq', 'ios'), 'bdg'],
  ['platform neq', c('platform', 'neq', 'ios'), 'acefh'],
  ['platform in', c('platform', 'in', ['web', 'ios']), 'bcdgh'],
  ['platform nin', c('platform', 'nin', ['android', 'ios']), 'ch'],
  ['userId eq', c('userId', 'eq', 'u1'), 'ab'],
  ['userId in', c('userId', 'in', ['u5', 'u6', 'nobody']), 'fgh'],
  ['userId neq', c('userId', 'neq', 'u1'), 'cdefgh'],
  ['userId nin', c('userId', 'nin', ['u1', 'u2']), 'defgh'],
  // optional attributes: a device without one fails eq/in/exists and passes neq/nin
  ['timezone eq', c('timezone', 'eq', 'Europe/Berlin'), 'ag'],
  ['timezone eq in another letter case', c('timezone', 'eq', 'europe/berlin'), 'ag'],
  ['timezone eq UTC', c('timezone', 'eq', 'UTC'), 'd'],
  ['timezone neq (devices without a zone included)', c('timezone', 'neq', 'Europe/Berlin'), 'bcdefh'],
  ['timezone in', c('timezone', 'in', ['UTC', 'Asia/Calcutta']), 'de'],
  ['timezone nin', c('timezone', 'nin', ['UTC', 'Asia/Calcutta']), 'abcfgh'],
  ['timezone exists', c('timezone', 'exists'), 'abdeg'],
  ['timezone exists false', c('timezone', 'exists', false), 'cfh'],
  ['locale eq (compared in canonical form)', c('locale', 'eq', 'en-us'), 'bf'],
  ['locale neq', c('locale', 'neq', 'en-US'), 'acdegh'],
  ['locale in', c('locale', 'in', ['de-DE', 'pt-BR']), 'ae'],
  ['locale nin', c('locale', 'nin', ['de-DE', 'pt-BR']), 'bcdfgh'],
  ['locale exists', c('locale', 'exists', true), 'abdef'],
  // versions compare as versions
  ['appVersion gt 9.2 ("10.0" > "9.2")', c('appVersion', 'gt', '9.2'), 'a'],
  ['appVersion gte 9.2', c('appVersion', 'gte', '9.2'), 'ab'],
  ['appVersion gt 1.2.9 ("1.2.10" > "1.2.9")', c('appVersion', 'gt', '1.2.9'), 'abceg'],
  ['appVersion lt 2 (a pre-release before its release)', c('appVersion', 'lt', '2'), 'cde'],
  ['appVersion lte 2.0 (2.0.0 is 2.0)', c('appVersion', 'lte', '2.0'), 'cdeg'],
  ['appVersion gte 2.0.0-beta.1 < 2.0.0', c('appVersion', 'gte', '2.0.0-beta.1'), 'abeg'],
  ['appVersion eq compares versions (10 = 10.0.0)', c('appVersion', 'eq', '10.0.0'), 'a'],
  ['appVersion eq v-prefixed', c('appVersion', 'eq', 'v9.2'), 'b'],
  ['appVersion eq a string that is no version', c('appVersion', 'eq', 'build-77'), 'f'],
  ['appVersion in, versions and other strings', c('appVersion', 'in', ['9.2.0', 'build-77', '1.2.9']), 'bdf'],
  ['appVersion neq (devices without one included)', c('appVersion', 'neq', '10'), 'bcdefgh'],
  ['appVersion nin', c('appVersion', 'nin', ['10', '9.2', 'build-77']), 'cdegh'],
  ['appVersion exists', c('appVersion', 'exists'), 'abcdefg'],
  ['appVersion exists false', c('appVersion', 'exists', false), 'h'],
  // times: absolute, and relative to `now`
  ['lastSeenAt gte within 30d', c('lastSeenAt', 'gte', { within: '30d' }), 'abdfgh'],
  ['lastSeenAt lt within 30d', c('lastSeenAt', 'lt', { within: '30d' }), 'ce'],
  ['lastSeenAt gt within 3h', c('lastSeenAt', 'gt', { within: '3h' }), 'df'],
  ['lastSeenAt gte within 90m', c('lastSeenAt', 'gte', { within: '90m' }), 'f'],
  ['lastSeenAt gte within 2w', c('lastSeenAt', 'gte', { within: '2w' }), 'abdfh'],
  ['createdAt lte an instant', c('createdAt', 'lte', ago(40 * DAY).toISOString()), 'abe'],
  ['createdAt lt an instant with an offset', c('createdAt', 'lt', new Date(ago(40 * DAY).getTime() + HOUR + 2 * HOUR).toISOString().replace('Z', '+02:00')), 'abe'],
  ['createdAt gt a date (midnight UTC)', c('createdAt', 'gt', '2026-11-24'), 'dfh'],
  ['createdAt gte within 365d', c('createdAt', 'gte', { within: '365d' }), 'abcdfgh'],
  // tags: equality never converts types; missing tags pass neq and nin only
  ['tag eq string', c('tags.plan', 'eq', 'pro'), 'ach'],
  ['tag eq number', c('tags.plan', 'eq', 5), 'e'],
  ['tag eq number does not match the string "10"', c('tags.score', 'eq', 10), 'a'],
  ['tag eq string does not match the number 10', c('tags.score', 'eq', '10'), 'c'],
  ['tag eq 2.5', c('tags.score', 'eq', 2.5), 'b'],
  ['tag eq true', c('tags.beta', 'eq', true), 'a'],
  ['tag eq false', c('tags.beta', 'eq', false), 'c'],
  ['tag neq (devices without the tag included)', c('tags.plan', 'neq', 'pro'), 'bdefg'],
  ['tag in, mixed types', c('tags.plan', 'in', ['free', 5, 'team']), 'beg'],
  ['tag nin', c('tags.plan', 'nin', ['pro', 'free']), 'defg'],
  ['tag exists', c('tags.beta', 'exists'), 'ac'],
  ['tag exists false', c('tags.beta', 'exists', false), 'bdefgh'],
  ['tag gt number (number tags only)', c('tags.score', 'gt', 2.5), 'a'],
  ['tag gte number', c('tags.score', 'gte', 2.5), 'ab'],
  ['tag lt number', c('tags.score', 'lt', 100), 'ab'],
  ['tag lte number, a tag holding a string never matches', c('tags.plan', 'lte', 5), 'e'],
  ['tag gt string by code point ("a" > "Z", "é" > "b")', c('tags.name', 'gt', 'Zed'), 'abf'],
  ['tag gte string', c('tags.name', 'gte', 'bob'), 'bf'],
  ['tag lt string, a number tag never matches', c('tags.score', 'lt', 'zzz'), 'c'],
  ['tag whose key nobody has', c('tags.nothing', 'neq', 'x'), ALL],
  // combinators
  ['and', { and: [c('platform', 'eq', 'android'), c('tags.plan', 'eq', 'pro')] }, 'a'],
  ['or', { or: [c('platform', 'eq', 'web'), c('tags.plan', 'eq', 5)] }, 'ceh'],
  ['not', { not: c('platform', 'eq', 'ios') }, 'acefh'],
  ['not of eq on a missing tag is its complement', { not: c('tags.plan', 'eq', 'pro') }, 'bdefg'],
  ['not of an ordering includes devices without the tag', { not: c('tags.score', 'gt', 5) }, 'bcdefgh'],
  ['not of exists', { not: c('timezone', 'exists') }, 'cfh'],
  ['not not', { not: { not: c('userId', 'eq', 'u1') } }, 'ab'],
  [
    'nested four levels',
    { or: [{ and: [c('tags.plan', 'eq', 'pro'), { not: { or: [c('platform', 'eq', 'web'), c('appVersion', 'lt', '5')] } }] }, c('userId', 'eq', 'u5')] },
    'afg',
  ],
  ['the example of the docs', { and: [c('platform', 'eq', 'ios'), c('tags.plan', 'in', ['pro', 'team']), c('lastSeenAt', 'gte', { within: '30d' })] }, 'g'],
  ['a value that looks like SQL is just a value', c('tags.plan', 'eq', `pro' OR '1'='1`), ''],
])('%s', (_label, filter, expected) => {
  it('selects exactly the expected devices of the project', async () => {
    expect(await matching(filter)).toBe(expected);
  });
});

describe('statements', () => {
  it('without a filter, every device of the project', async () => {
    expect(await matching(undefined)).toBe(ALL);
  });

  it('values travel as parameters, never in the statement', () => {
    const statement = audiencePageStatement(projectId, { and: [c('tags.plan', 'eq', `x'; DROP TABLE "Device"; --`), c('userId', 'in', ['robert'])] }, { limit: 10 });
    expect(statement.text).not.toContain('DROP');
    expect(statement.text).not.toContain('robert');
    expect(statement.text).not.toContain(projectId);
    expect(statement.values).toEqual(expect.arrayContaining([projectId, ['robert']]));
  });

  it('count: devices, distinct users and devices per platform', async () => {
    const count = async (filter?: AudienceFilter) => toAudienceCount((await client.query(audienceCountStatement(projectId, filter, { now: NOW }))).rows[0]);
    expect(await count()).toEqual({ devices: 8, users: 6, byPlatform: { android: 3, ios: 3, web: 2 } });
    expect(await count(c('tags.plan', 'eq', 'pro'))).toEqual({ devices: 3, users: 3, byPlatform: { android: 1, ios: 0, web: 2 } });
    expect(await count(c('userId', 'in', ['u1', 'u5']))).toEqual({ devices: 4, users: 2, byPlatform: { android: 2, ios: 2, web: 0 } });
    expect(await count(c('userId', 'eq', 'nobody'))).toEqual({ devices: 0, users: 0, byPlatform: { android: 0, ios: 0, web: 0 } });
  });

  it('keyset pages: in id order, each after the last id of the one before, together the whole audience once', async () => {
    const filter: AudienceFilter = { not: c('platform', 'eq', 'web') };
    const seen: { id: string; deviceToken: string }[] = [];
    let after: string | undefined;
    for (;;) {
      const { rows } = await client.query<{ id: string; deviceToken: string }>(audiencePageStatement(projectId, filter, { after, limit: 2, columns: ['id', 'deviceToken'], now: NOW }));
      if (rows.length === 0) break;
      expect(rows.length).toBeLessThanOrEqual(2);
      seen.push(...rows);
      after = rows[rows.length - 1].id;
    }
    expect(seen.map((r) => r.id)).toEqual([...seen.map((r) => r.id)].sort());
    expect(seen.map((r) => r.deviceToken).sort().join('')).toBe('abdefg');
  });

  it('a snapshot: every matching device in one statement, to be inserted elsewhere', async () => {
    const filter = c('tags.plan', 'eq', 'pro');
    const { rows } = await client.query<{ deviceToken: string }>(audienceSelectStatement(projectId, filter, { columns: ['deviceToken'] }));
    expect(rows.map((r) => r.deviceToken).sort().join('')).toBe('ach');
    const snapshot = audienceSelectStatement(projectId, filter, { columns: ['id'] });
    await client.query('CREATE TEMP TABLE snapshot (id uuid)');
    await client.query({ ...snapshot, text: `INSERT INTO snapshot ${snapshot.text}` });
    expect((await client.query('SELECT count(*)::int AS n FROM snapshot')).rows[0].n).toBe(3);
  });

  it('a page reads the columns asked for', async () => {
    const { rows } = await client.query(audiencePageStatement(projectId, c('userId', 'eq', 'u4'), { limit: 1, columns: ['userId', 'platform', 'tags', 'timezone', 'locale', 'appVersion'] }));
    expect(rows).toEqual([{ userId: 'u4', platform: 'android', tags: { plan: 5, name: 'Zed' }, timezone: 'Asia/Calcutta', locale: 'pt-BR', appVersion: '2.0.0-beta.1' }]);
  });

  it('relative times count back from the given instant', async () => {
    const later = new Date(NOW.getTime() + 2 * DAY);
    const { rows } = await client.query<{ deviceToken: string }>(audiencePageStatement(projectId, c('lastSeenAt', 'gte', { within: '2d' }), { limit: 10, columns: ['deviceToken'], now: later }));
    expect(rows.map((r) => r.deviceToken).sort()).toEqual(['f']);
  });

  it('a filter that breaks the rules is a 400 naming the path, before any SQL', () => {
    const bad = { and: [c('platform', 'eq', 'ios'), c('tags.plan', 'like', 'pro')] };
    expect(() => audienceCountStatement(projectId, bad)).toThrow(AppError);
    try {
      audienceCountStatement(projectId, bad, { path: 'segment.filter' });
    } catch (err) {
      expect((err as AppError).status).toBe(400);
      expect((err as AppError).details).toEqual([{ path: 'segment.filter.and.1.op', message: expect.stringContaining('unknown operator "like"') }]);
    }
  });
});
