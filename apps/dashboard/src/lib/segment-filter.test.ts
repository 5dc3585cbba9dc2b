import { audienceFilter } from '@herald/schemas';
import { conditionToRow, describeFilter, filterToForm, formToFilter, newRow, rowErrors, withField, type FilterForm, type FilterRow } from './segment-filter';

const row = (r: Partial<FilterRow>): FilterRow => ({ ...newRow(r.field), ...r });

describe('the segment form ↔ filter', () => {
  it.each<[string, FilterForm, unknown]>([
    ['one row is the condition itself', { match: 'and', negate: false, rows: [row({ field: 'platform', op: 'eq', value: 'ios' })] }, { field: 'platform', op: 'eq', value: 'ios' }],
    [
      'rows under and, typed tags, relative and absolute times',
      {
        match: 'and',
        negate: false,
        rows: [
          row({ field: 'tag', tagKey: 'plan', op: 'in', kind: 'string', value: 'pro, team' }),
          row({ field: 'tag', tagKey: 'seats', op: 'gte', kind: 'number', value: '5' }),
          row({ field: 'tag', tagKey: 'trial', op: 'eq', kind: 'boolean', value: 'false' }),
          row({ field: 'lastSeenAt', op: 'gte', kind: 'relative', value: '30d' }),
          row({ field: 'createdAt', op: 'lt', kind: 'date', value: '2026-11-01' }),
          row({ field: 'appVersion', op: 'gt', value: '10.0' }),
        ],
      },
      {
        and: [
          { field: 'tags.plan', op: 'in', value: ['pro', 'team'] },
          { field: 'tags.seats', op: 'gte', value: 5 },
          { field: 'tags.trial', op: 'eq', value: false },
          { field: 'lastSeenAt', op: 'gte', value: { within: '30d' } },
          { field: 'createdAt', op: 'lt', value: '2026-11-01' },
          { field: 'appVersion', op: 'gt', value: '10.0' },
        ],
      },
    ],
    [
      'any, negated, with exists both ways',
      { match: 'or', negate: true, rows: [row({ field: 'timezone', op: 'exists' }), row({ field: 'locale', op: 'notExists' })] },
      { not: { or: [{ field: 'timezone', op: 'exists' }, { field: 'locale', op: 'exists', value: false }] } },
    ],
  ])('%s', (_name, form, filter) => {
    expect(formToFilter(form)).toEqual(filter);
    expect(audienceFilter.safeParse(filter).success).toBe(true);
    expect(formToFilter(filterToForm(filter)!)).toEqual(filter);
  });

  it.each([
    ['nested combinators', { and: [{ or: [{ field: 'platform', op: 'eq', value: 'ios' }] }] }],
    ['a list value holding a comma', { field: 'tags.city', op: 'in', value: ['Washington, D.C.'] }],
    ['a list mixing types', { field: 'tags.x', op: 'in', value: [1, 'a'] }],
    ['a string with outer spaces', { field: 'tags.x', op: 'eq', value: ' a' }],
    ['an unknown field', { field: 'plan', op: 'eq', value: 'pro' }],
    ['a key beside a condition', { field: 'platform', op: 'eq', value: 'ios', extra: 1 }],
  ])('leaves to the JSON view what the form cannot show: %s', (_name, filter) => {
    expect(filterToForm(filter)).toBeUndefined();
  });

  it('names what is wrong with a row in the API words, per part', () => {
    expect(rowErrors(row({ field: 'tag', tagKey: 'bad key', op: 'eq', kind: 'string', value: 'x' }))).toEqual({ tagKey: 'a tag key is 1–64 letters, digits, _ . or -' });
    expect(rowErrors(row({ field: 'platform', op: 'eq', value: '' }))).toEqual({ value: 'eq needs a value' });
    expect(rowErrors(row({ field: 'lastSeenAt', op: 'gte', kind: 'relative', value: '30 days' })).value).toMatch(/within/);
    expect(rowErrors(row({ field: 'tag', tagKey: 'seats', op: 'gt', kind: 'number', value: 'five' })).value).toBe('Type a number, e.g. 5 or 2.5 (or choose Text)');
    expect(rowErrors(row({ field: 'timezone', op: 'in', value: 'Europe/Berlin, Mars/Base' })).value).toMatch(/IANA/);
    expect(rowErrors(row({ field: 'appVersion', op: 'gte', value: '2.1' }))).toEqual({});
  });

  it('keeps the operator and value when the new field takes them', () => {
    expect(withField(row({ field: 'locale', op: 'in', value: 'en, de' }), 'timezone')).toMatchObject({ op: 'in', value: 'en, de' });
    expect(withField(row({ field: 'appVersion', op: 'gt', value: '2' }), 'platform')).toMatchObject({ op: 'eq', kind: 'string' });
    expect(withField(row({ field: 'platform' }), 'lastSeenAt')).toMatchObject({ op: 'gt', kind: 'relative' });
  });

  it('reads a condition back with its value kind', () => {
    expect(conditionToRow({ field: 'tags.n', op: 'nin', value: [1, 2] })).toMatchObject({ field: 'tag', tagKey: 'n', kind: 'number', value: '1, 2' });
    expect(conditionToRow({ field: 'createdAt', op: 'gt', value: '2026-11-01T08:00:00Z' })).toMatchObject({ kind: 'date', value: '2026-11-01T08:00:00Z' });
  });

  it('describes a filter in one line', () => {
    expect(
      describeFilter({
        and: [
          { field: 'platform', op: 'eq', value: 'ios' },
          { or: [{ field: 'tags.plan', op: 'in', value: ['pro', 'team'] }, { field: 'tags.vip', op: 'exists' }] },
          { not: { field: 'lastSeenAt', op: 'lt', value: { within: '30d' } } },
          { field: 'locale', op: 'exists', value: false },
        ],
      }),
    ).toBe('platform = ios and (tags.plan in (pro, team) or tags.vip set) and not lastSeenAt < 30d ago and locale not set');
  });
});
