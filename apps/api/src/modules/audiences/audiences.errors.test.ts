import { randomUUID } from 'node:crypto';
import { expectError, startApi, tenant, unique, type Harness, type Tenant } from '@herald/testing';

/** Segments and counts: what is refused, with which status, message and path. */
let h: Harness;
let t: Tenant;
beforeAll(async () => {
  h = await startApi();
  t = await tenant(h);
});
afterAll(() => h.close());

const segments = () => `/projects/${t.project.id}/segments`;
const owner = () => ({ token: t.owner.accessToken });
const ios = { field: 'platform', op: 'eq', value: 'ios' };
const count = (body: unknown) => h.post('/push/audience/count', { apiKey: t.apiKey.key, body });
const nested = (levels: number) => {
  let node: unknown = ios;
  for (let i = 0; i < levels; i++) node = { and: [node] };
  return node;
};

/** Filters that break a rule, and the path of the first problem under `filter`. */
const BAD_FILTERS: [string, unknown, string, RegExp][] = [
  ['an unknown field', { and: [ios, ios, { field: 'plan', op: 'eq', value: 'pro' }] }, 'filter.and.2.field', /unknown field "plan"/],
  ['an unknown operator', { and: [ios, { field: 'tags.plan', op: 'contains', value: 'pro' }] }, 'filter.and.1.op', /unknown operator "contains"/],
  ['an operator the field does not take', { field: 'lastSeenAt', op: 'eq', value: { within: '30d' } }, 'filter.op', /lastSeenAt takes gt, gte, lt, lte/],
  ['depth 5', nested(5), 'filter.and.0.and.0.and.0.and.0', /at most 4 levels/],
  ['51 conditions', { or: Array.from({ length: 51 }, () => ios) }, 'filter', /at most 50 conditions/],
  ['an in list of 501', { field: 'userId', op: 'in', value: Array.from({ length: 501 }, (_, i) => `u${i}`) }, 'filter.value', /at most 500 values/],
  ['a bad tag key', { field: 'tags.pl an', op: 'eq', value: 'pro' }, 'filter.field', /tag key/],
  ['a bad time zone', { field: 'timezone', op: 'eq', value: 'Mars/Base' }, 'filter.value', /IANA time zone/],
  ['a bad locale', { field: 'locale', op: 'in', value: ['en-US', 'en_GB'] }, 'filter.value.1', /BCP 47/],
  ['an appVersion over 32 characters', { field: 'appVersion', op: 'eq', value: '9'.repeat(33) }, 'filter.value', /1–32 characters/],
  ['a bad relative time', { field: 'lastSeenAt', op: 'gte', value: { within: '30 days' } }, 'filter.value', /relative time/],
  ['an empty or', { or: [] }, 'filter.or', /at least one filter/],
  ['an unexpected key', { ...ios, negate: true }, 'filter.negate', /unexpected/],
];

describe('segments', () => {
  it.each(BAD_FILTERS)('create with %s: 400 naming its path', async (_label, filter, path, message) => {
    const res = await h.post(segments(), { ...owner(), body: { name: unique('bad'), filter } });
    expectError(res, 400);
    expect(res.body.details[0]).toEqual({ path, message: expect.stringMatching(message) });
  });

  it.each<[string, unknown, string]>([
    ['no name', { filter: ios }, 'name'],
    ['an empty name', { name: '  ', filter: ios }, 'name'],
    ['a name of 101 characters', { name: 'n'.repeat(101), filter: ios }, 'name'],
    ['a description of 501 characters', { name: 'x', description: 'd'.repeat(501), filter: ios }, 'description'],
    ['no filter', { name: 'x' }, 'filter'],
  ])('create with %s: 400 naming %s', async (_label, body, path) => {
    const res = await h.post(segments(), { ...owner(), body });
    expectError(res, 400);
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it('a taken name: 409 on create and on rename', async () => {
    const name = unique('taken');
    await h.post(segments(), { ...owner(), body: { name, filter: ios } });
    expectError(await h.post(segments(), { ...owner(), body: { name: ` ${name} `, filter: ios } }), 409, 'A segment with this name already exists in this project');
    const other = await h.post(segments(), { ...owner(), body: { name: unique('other'), filter: ios } });
    expectError(await h.put(`${segments()}/${other.body.id}`, { ...owner(), body: { name } }), 409);
    expect((await h.get(`${segments()}/${other.body.id}`, owner())).body.name).toBe(other.body.name);
  });

  it('an update with nothing to change, or a bad filter, is a 400 and changes nothing', async () => {
    const created = await h.post(segments(), { ...owner(), body: { name: unique('keep'), filter: ios } });
    const one = `${segments()}/${created.body.id}`;
    expectError(await h.put(one, { ...owner(), body: {} }), 400, /Provide name, description or filter/);
    const bad = await h.patch(one, { ...owner(), body: { name: 'renamed', filter: { field: 'nope', op: 'eq', value: 1 } } });
    expectError(bad, 400);
    expect(bad.body.details[0].path).toBe('filter.field');
    expect((await h.get(one, owner())).body).toEqual(created.body);
  });

  it('an unknown segment is a 404 for every route; a malformed id a 400', async () => {
    const missing = `${segments()}/${randomUUID()}`;
    expectError(await h.get(missing, owner()), 404, 'Segment not found');
    expectError(await h.put(missing, { ...owner(), body: { name: 'x' } }), 404, 'Segment not found');
    expectError(await h.patch(missing, { ...owner(), body: { name: 'x' } }), 404, 'Segment not found');
    expectError(await h.delete(missing, owner()), 404, 'Segment not found');
    expectError(await h.get(`${segments()}/not-a-uuid`, owner()), 400, /segmentId must be a valid UUID/);
  });
});

describe('POST /push/audience/count', () => {
  it.each(BAD_FILTERS)('%s: 400 naming its path', async (_label, filter, path, message) => {
    const res = await count({ filter });
    expectError(res, 400);
    expect(res.body.details[0]).toEqual({ path, message: expect.stringMatching(message) });
  });

  it.each<[string, unknown, RegExp]>([
    ['nothing', {}, /exactly one of segmentId, filter or all/],
    ['a segment and a filter', { segmentId: randomUUID(), filter: ios }, /only one of segmentId, filter/],
    ['a filter and all', { filter: ios, all: true }, /only one of filter, all/],
    ['all: false', { all: false }, /all must be true/],
    ['a malformed segment id', { segmentId: 'seg-1' }, /segmentId must be a valid UUID/],
    ['a filter of null', { filter: null }, /a filter is a condition/],
  ])('%s is a 400', async (_label, body, message) => {
    expectError(await count(body), 400, message);
  });

  it('an unknown segment is a 404', async () => {
    expectError(await count({ segmentId: randomUUID() }), 404, 'Segment not found');
  });

  it('with a JWT, projectId is required', async () => {
    expectError(await h.post('/push/audience/count', { ...owner(), body: { all: true } }), 400, 'projectId query parameter is required');
  });
});
