import { z } from 'zod';
import { audienceFilter, fieldRule, filterProblems, FILTER_FIELDS, FILTER_OPS, withinMs } from './audience-filter';

const body = z.object({ filter: audienceFilter });
const c = (field: string, op: string, value?: unknown) => ({ field, op, ...(value === undefined ? {} : { value }) });
const nest = (levels: number, inner: unknown = c('platform', 'eq', 'ios')) => {
  let node = inner;
  for (let i = 0; i < levels; i++) node = i % 3 === 2 ? { not: node } : { [i % 2 ? 'or' : 'and']: [node] };
  return node;
};
/** The `details` a request with this filter would answer: path → message. */
const details = (filter: unknown) => {
  const result = body.safeParse({ filter });
  return result.success ? [] : result.error.issues.map((i) => [i.path.join('.'), i.message]);
};

describe('filters that are fine', () => {
  it.each<[string, unknown]>([
    ['a condition alone', c('platform', 'eq', 'ios')],
    ['the example of the docs', { and: [c('platform', 'eq', 'ios'), c('tags.plan', 'eq', 'pro'), c('lastSeenAt', 'gte', { within: '30d' })] }],
    ['four levels of and / or / not', nest(4)],
    ['50 conditions', { or: Array.from({ length: 50 }, (_, i) => c('userId', 'eq', `u${i}`)) }],
    ['an in list of 500', c('userId', 'in', Array.from({ length: 500 }, (_, i) => `u${i}`))],
    ['exists without a value', c('tags.plan', 'exists')],
    ['exists false', c('timezone', 'exists', false)],
    ['every tag value type', { or: [c('tags.a', 'eq', 'x'), c('tags.a', 'eq', 1.5), c('tags.a', 'eq', false), c('tags.a', 'in', ['x', 2, true])] }],
    ['a tag key with dots and dashes', c('tags.app.build-type_2', 'eq', 'x')],
    ['orderings on tags', { and: [c('tags.score', 'gt', 1), c('tags.name', 'lte', 'm')] }],
    ['versions', { and: [c('appVersion', 'gte', '10.0'), c('appVersion', 'lt', 'v11.0.0-beta.1'), c('appVersion', 'eq', 'nightly build')] }],
    ['times', { and: [c('createdAt', 'gt', '2026-01-01T00:00:00Z'), c('createdAt', 'lt', '2026-11-01T10:00:00+02:00'), c('lastSeenAt', 'gte', '2026-11-01'), c('lastSeenAt', 'gte', { within: '15m' })] }],
    ['zones and locales in any letter case, aliases', { and: [c('timezone', 'in', ['UTC', 'europe/berlin', 'US/Eastern', 'Etc/UTC']), c('locale', 'eq', 'en-us')] }],
  ])('%s', (_label, filter) => {
    expect(details(filter)).toEqual([]);
  });
});

describe('every refusal names its path', () => {
  it.each<[string, unknown, string, RegExp]>([
    ['unknown field', c('color', 'eq', 'red'), 'filter.field', /unknown field "color": fields are platform, userId, tags.<key>, timezone, locale, appVersion, createdAt, lastSeenAt/],
    ['unknown field deep inside', { and: [c('platform', 'eq', 'ios'), { or: [c('tags.plan', 'eq', 'pro'), c('plan', 'eq', 'pro')] }] }, 'filter.and.1.or.1.field', /unknown field "plan"/],
    ['a field that is not a string', c(7 as unknown as string, 'eq', 'x'), 'filter.field', /field is required/],
    ['a missing field', { op: 'eq', value: 'x' }, 'filter.field', /field is required/],
    ['a bad tag key', c('tags.plan!', 'eq', 'x'), 'filter.field', /tag key/],
    ['an empty tag key', c('tags.', 'eq', 'x'), 'filter.field', /tag key/],
    ['a tag key of 65 characters', c(`tags.${'k'.repeat(65)}`, 'eq', 'x'), 'filter.field', /tag key/],
    ['unknown operator', c('platform', 'like', 'ios'), 'filter.op', /unknown operator "like": operators are eq, neq, in, nin, exists, gt, gte, lt, lte/],
    ['a missing operator', { field: 'platform', value: 'ios' }, 'filter.op', /op is required/],
    ['an operator the field does not take', c('platform', 'gt', 'ios'), 'filter.op', /platform takes eq, neq, in, nin$/],
    ['exists on a field every device has', c('userId', 'exists'), 'filter.op', /userId takes/],
    ['eq on a time', c('createdAt', 'eq', '2026-01-01T00:00:00Z'), 'filter.op', /createdAt takes gt, gte, lt, lte/],
    ['ordering on a time zone', c('timezone', 'gt', 'UTC'), 'filter.op', /timezone takes/],
    ['depth 5', nest(5), 'filter.and.0.or.0.not.or.0', /at most 4 levels/],
    ['depth 5 of not', { not: { not: { not: { not: { not: c('platform', 'eq', 'ios') } } } } }, 'filter.not.not.not.not', /at most 4 levels/],
    ['51 conditions', { and: Array.from({ length: 51 }, (_, i) => c('userId', 'eq', `u${i}`)) }, 'filter', /at most 50 conditions \(51 given\)/],
    ['51 conditions over several levels', { and: [{ or: Array.from({ length: 25 }, () => c('platform', 'eq', 'ios')) }, { not: { or: Array.from({ length: 26 }, () => c('platform', 'eq', 'web')) } }] }, 'filter', /51 given/],
    ['an in list of 501', c('userId', 'in', Array.from({ length: 501 }, (_, i) => `u${i}`)), 'filter.value', /at most 500 values \(501 given\)/],
    ['a nin list of 501', c('tags.plan', 'nin', Array.from({ length: 501 }, (_, i) => `p${i}`)), 'filter.value', /at most 500 values/],
    ['an empty in list', c('platform', 'in', []), 'filter.value', /at least one value/],
    ['in without a list', c('platform', 'in', 'ios'), 'filter.value', /array of values/],
    ['eq with a list', c('platform', 'eq', ['ios']), 'filter.value', /one value/],
    ['a missing value', c('platform', 'eq'), 'filter.value', /eq needs a value/],
    ['a null value', c('tags.plan', 'eq', null), 'filter.value', /tag value/],
    ['an unknown platform', c('platform', 'eq', 'windows'), 'filter.value', /platform is one of android, ios, web/],
    ['an unknown platform in a list', c('platform', 'in', ['ios', 'symbian']), 'filter.value.1', /platform is one of/],
    ['an empty userId', c('userId', 'eq', ''), 'filter.value', /userId/],
    ['an unknown time zone', c('timezone', 'eq', 'Mars/Olympus_Mons'), 'filter.value', /IANA time zone/],
    ['an offset is no zone', c('timezone', 'eq', '+05:00'), 'filter.value', /IANA time zone/],
    ['a bad locale', c('locale', 'eq', 'en_US'), 'filter.value', /BCP 47/],
    ['an appVersion over 32 characters', c('appVersion', 'eq', '1'.repeat(33)), 'filter.value', /1–32 characters/],
    ['an ordering on a string that is no version', c('appVersion', 'gte', 'latest'), 'filter.value', /not a version gte can compare/],
    ['a tag string over 256 characters', c('tags.plan', 'eq', 'x'.repeat(257)), 'filter.value', /at most 256/],
    ['a tag value that is an object', c('tags.plan', 'eq', { a: 1 }), 'filter.value', /string, a finite number or a boolean/],
    ['a boolean ordering', c('tags.beta', 'gt', false), 'filter.value', /not booleans/],
    ['exists with a string', c('tags.plan', 'exists', 'yes'), 'filter.value', /true \(the default\) or false/],
    ['a time that is no date', c('lastSeenAt', 'gte', 'yesterday'), 'filter.value', /ISO 8601/],
    ['a relative time in years', c('lastSeenAt', 'gte', { within: '1y' }), 'filter.value', /unit m, h, d or w/],
    ['a relative time beyond 10 years', c('lastSeenAt', 'gte', { within: '3651d' }), 'filter.value', /at most 10 years/],
    ['a relative time of 0', c('lastSeenAt', 'gte', { within: '0d' }), 'filter.value', /relative time/],
    ['a relative time with another key', c('lastSeenAt', 'gte', { within: '1d', ago: true }), 'filter.value', /relative time/],
    ['an unexpected key in a condition', { ...c('platform', 'eq', 'ios'), values: ['web'] }, 'filter.values', /unexpected in a condition/],
    ['two combinators in one node', { and: [c('platform', 'eq', 'ios')], or: [c('platform', 'eq', 'web')] }, 'filter.or', /unexpected beside "and"/],
    ['a combinator beside a condition', { not: c('platform', 'eq', 'ios'), field: 'platform' }, 'filter.field', /unexpected beside "not"/],
    ['an empty and', { and: [] }, 'filter.and', /at least one filter/],
    ['or that is no list', { or: c('platform', 'eq', 'ios') }, 'filter.or', /array of filters/],
    ['a filter that is a list', [c('platform', 'eq', 'ios')], 'filter', /a filter is a condition/],
    ['an empty object', {}, 'filter', /a filter is a condition/],
    ['a string', 'platform = ios', 'filter', /a filter is a condition/],
    ['null', null, 'filter', /a filter is a condition/],
  ])('%s', (_label, filter, path, message) => {
    const found = details(filter);
    expect(found.length).toBeGreaterThan(0);
    expect(found[0][0]).toBe(path);
    expect(found[0][1]).toMatch(message);
  });

  it('reports every problem at once', () => {
    expect(details({ and: [c('color', 'eq', 'x'), c('platform', 'like', 'x'), c('platform', 'eq', 'x')] })).toEqual([
      ['filter.and.0.field', expect.any(String)],
      ['filter.and.1.op', expect.any(String)],
      ['filter.and.2.value', expect.any(String)],
    ]);
  });

  it('a check is cheap however deep the input nests: it stops at the bound', () => {
    expect(filterProblems(nest(60))).toEqual([{ path: expect.any(Array), message: expect.stringMatching(/at most 4 levels/) }]);
  });
});

describe('the tables forms are built from', () => {
  it('every field has operators, all of them known', () => {
    for (const [field, rule] of Object.entries(FILTER_FIELDS)) {
      expect([field, rule.ops.every((op) => FILTER_OPS.includes(op))]).toEqual([field, true]);
      expect(fieldRule(field)).toBe(rule);
    }
    expect(fieldRule('tags.plan')?.ops).toEqual(FILTER_OPS);
    expect(fieldRule('toString')).toBeUndefined();
    expect(fieldRule('tags.__proto__')).toBeUndefined();
  });

  it('relative times in minutes, hours, days and weeks', () => {
    expect([withinMs('15m'), withinMs('2h'), withinMs('30d'), withinMs('1w'), withinMs('30'), withinMs('1.5d')]).toEqual([900_000, 7_200_000, 2_592_000_000, 604_800_000, undefined, undefined]);
  });
});
