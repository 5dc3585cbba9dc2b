import { z } from 'zod';
import { appVersionKey } from './app-version';
import { MAX_APP_VERSION, MAX_TAG_STRING, canonicalLocale, isTagKey, isTimeZone } from './device-attributes';

/**
 * The audience filter language (docs/audiences.md#filters): JSON, one shape everywhere — a condition
 * `{ "field", "op", "value" }`, or `{ "and": [...] }`, `{ "or": [...] }`, `{ "not": {...} }` around
 * filters. This file checks a filter and names every problem by its path; packages/db compiles a
 * checked filter into SQL.
 */
export const FILTER_OPS = ['eq', 'neq', 'in', 'nin', 'exists', 'gt', 'gte', 'lt', 'lte'] as const;
export type FilterOp = (typeof FILTER_OPS)[number];

export const FILTER_LIMITS = {
  /** `and` / `or` / `not` nested in one another (a condition alone is depth 0). */
  maxDepth: 4,
  maxConditions: 50,
  maxInValues: 500,
} as const;

/** How far back a relative time may reach: ten years. */
const MAX_WITHIN_MS = 3650 * 86_400_000;
export const WITHIN_UNITS = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;
const WITHIN = /^([1-9]\d{0,6})([mhdw])$/;

export const PLATFORM_VALUES = ['android', 'ios', 'web'] as const;
const MAX_USER_ID = 255;

type ValueKind = 'platform' | 'userId' | 'timezone' | 'locale' | 'appVersion' | 'time' | 'tag';

interface FieldRule {
  kind: ValueKind;
  ops: readonly FilterOp[];
  /** What the field holds, for the messages and for forms. */
  description: string;
}

const EQUALITY = ['eq', 'neq', 'in', 'nin'] as const;
const ORDERED = ['gt', 'gte', 'lt', 'lte'] as const;

/**
 * The fields a filter may name, besides `tags.<key>`, with their operators. A form builds its
 * choices from this table; packages/db maps each name to its column.
 */
export const FILTER_FIELDS = {
  platform: { kind: 'platform', ops: EQUALITY, description: 'android, ios or web' },
  userId: { kind: 'userId', ops: EQUALITY, description: "the customer's user id" },
  timezone: { kind: 'timezone', ops: [...EQUALITY, 'exists'], description: 'an IANA time zone' },
  locale: { kind: 'locale', ops: [...EQUALITY, 'exists'], description: 'a BCP 47 language tag' },
  appVersion: { kind: 'appVersion', ops: [...EQUALITY, 'exists', ...ORDERED], description: 'a version, compared as one' },
  createdAt: { kind: 'time', ops: ORDERED, description: 'when the device was first registered' },
  lastSeenAt: { kind: 'time', ops: ORDERED, description: 'when the device was last registered' },
} as const satisfies Record<string, FieldRule>;
export type FilterField = keyof typeof FILTER_FIELDS;

export const TAG_FIELD_PREFIX = 'tags.';
const TAG_RULE: FieldRule = { kind: 'tag', ops: FILTER_OPS, description: 'a tag' };

export type FilterScalar = string | number | boolean;
export interface RelativeTime {
  within: string;
}
export type FilterValue = FilterScalar | FilterScalar[] | RelativeTime;

export interface AudienceCondition {
  field: string;
  op: FilterOp;
  value?: FilterValue;
}
export type AudienceFilter = AudienceCondition | { and: AudienceFilter[] } | { or: AudienceFilter[] } | { not: AudienceFilter };

export interface FilterProblem {
  path: (string | number)[];
  message: string;
}

/** The rule of a field name, or undefined for a name that is none. */
export function fieldRule(field: string): FieldRule | undefined {
  if (field.startsWith(TAG_FIELD_PREFIX)) return isTagKey(field.slice(TAG_FIELD_PREFIX.length)) ? TAG_RULE : undefined;
  return Object.hasOwn(FILTER_FIELDS, field) ? FILTER_FIELDS[field as FilterField] : undefined;
}

/** Milliseconds of a relative time (`30d`), or undefined when it is not one. */
export function withinMs(within: string): number | undefined {
  const match = WITHIN.exec(within);
  if (!match) return undefined;
  const ms = Number(match[1]) * WITHIN_UNITS[match[2] as keyof typeof WITHIN_UNITS];
  return ms <= MAX_WITHIN_MS ? ms : undefined;
}

const FIELD_LIST = `${Object.keys(FILTER_FIELDS).slice(0, 2).join(', ')}, tags.<key>, ${Object.keys(FILTER_FIELDS).slice(2).join(', ')}`;
/** A name from the input, quoted for a message: never more than 64 characters of it. */
const quote = (name: string) => JSON.stringify(name.length > 64 ? `${name.slice(0, 64)}…` : name);
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const COMBINATORS = ['and', 'or', 'not'] as const;
const CONDITION_KEYS = new Set(['field', 'op', 'value']);
const ISO_INSTANT = z.union([z.iso.datetime({ offset: true }), z.iso.date()]);

/** What is wrong with one value of a field for an operator, or undefined when it is fine. */
function valueProblem(rule: FieldRule, field: string, op: FilterOp, value: unknown): string | undefined {
  const ordered = (ORDERED as readonly string[]).includes(op);
  switch (rule.kind) {
    case 'platform':
      return (PLATFORM_VALUES as readonly unknown[]).includes(value) ? undefined : `platform is one of ${PLATFORM_VALUES.join(', ')}`;
    case 'userId':
      return typeof value === 'string' && value.length > 0 && value.length <= MAX_USER_ID ? undefined : `userId is a string of 1–${MAX_USER_ID} characters`;
    case 'timezone':
      return typeof value === 'string' && isTimeZone(value) ? undefined : 'timezone is an IANA time zone the server knows, e.g. Europe/Berlin or UTC';
    case 'locale':
      return typeof value === 'string' && canonicalLocale(value) !== undefined ? undefined : 'locale is a BCP 47 language tag, e.g. en-US';
    case 'appVersion':
      if (typeof value !== 'string' || value.trim().length === 0 || value.length > MAX_APP_VERSION) return `appVersion is a string of 1–${MAX_APP_VERSION} characters`;
      return ordered && appVersionKey(value.trim()) === null ? `${quote(value)} is not a version ${op} can compare (e.g. 2.14 or 2.14.1-beta.2)` : undefined;
    case 'time':
      if (isObject(value)) {
        const keys = Object.keys(value);
        if (keys.length === 1 && keys[0] === 'within' && typeof value.within === 'string' && withinMs(value.within) !== undefined) return undefined;
        return `a relative time is {"within": "<count><unit>"}, unit m, h, d or w (e.g. "30d"), at most 10 years`;
      }
      return typeof value === 'string' && ISO_INSTANT.safeParse(value).success ? undefined : `${field} is an ISO 8601 date-time (e.g. 2026-11-01T00:00:00Z), a date (2026-11-01, midnight UTC) or {"within": "30d"}`;
    case 'tag':
      if (typeof value === 'string') return value.length <= MAX_TAG_STRING ? undefined : `a tag string is at most ${MAX_TAG_STRING} characters`;
      if (typeof value === 'number') return Number.isFinite(value) ? undefined : 'a tag number must be finite';
      if (typeof value === 'boolean') return ordered ? `${op} compares numbers or strings, not booleans` : undefined;
      return 'a tag value is a string, a finite number or a boolean';
  }
}

class FilterChecker {
  readonly problems: FilterProblem[] = [];
  conditions = 0;

  private add(path: (string | number)[], message: string) {
    this.problems.push({ path, message });
  }

  node(value: unknown, path: (string | number)[], depth: number): void {
    if (!isObject(value)) return this.add(path, 'a filter is a condition {"field", "op", "value"} or {"and": [...]}, {"or": [...]} or {"not": {...}}');
    const keys = Object.keys(value);
    const combinator = COMBINATORS.find((c) => Object.hasOwn(value, c));
    if (combinator) {
      for (const key of keys) if (key !== combinator) this.add([...path, key], `unexpected beside "${combinator}": a filter node holds one of and, or, not, or a condition`);
      if (depth + 1 > FILTER_LIMITS.maxDepth) return this.add(path, `filters nest at most ${FILTER_LIMITS.maxDepth} levels of and, or and not`);
      const inner = value[combinator];
      if (combinator === 'not') return this.node(inner, [...path, 'not'], depth + 1);
      if (!Array.isArray(inner)) return this.add([...path, combinator], `${combinator} takes an array of filters`);
      if (inner.length === 0) return this.add([...path, combinator], `${combinator} takes at least one filter`);
      inner.forEach((child, i) => this.node(child, [...path, combinator, i], depth + 1));
      return;
    }
    if (!Object.hasOwn(value, 'field') && !Object.hasOwn(value, 'op')) return this.add(path, 'a filter is a condition {"field", "op", "value"} or {"and": [...]}, {"or": [...]} or {"not": {...}}');
    this.condition(value, keys, path);
  }

  private condition(value: Record<string, unknown>, keys: string[], path: (string | number)[]) {
    this.conditions += 1;
    for (const key of keys) if (!CONDITION_KEYS.has(key)) this.add([...path, key], 'unexpected in a condition: it holds field, op and value');
    const { field, op } = value;
    if (typeof field !== 'string') return this.add([...path, 'field'], `field is required: one of ${FIELD_LIST}`);
    const rule = fieldRule(field);
    if (!rule) {
      const message = field.startsWith(TAG_FIELD_PREFIX) ? 'a tag key is 1–64 letters, digits, _ . or -' : `unknown field ${quote(field)}: fields are ${FIELD_LIST}`;
      return this.add([...path, 'field'], message);
    }
    if (typeof op !== 'string' || !(FILTER_OPS as readonly string[]).includes(op)) {
      return this.add([...path, 'op'], `${typeof op === 'string' ? `unknown operator ${quote(op)}` : 'op is required'}: operators are ${FILTER_OPS.join(', ')}`);
    }
    if (!rule.ops.includes(op as FilterOp)) return this.add([...path, 'op'], `${field} takes ${rule.ops.join(', ')}`);
    this.value(rule, field, op as FilterOp, value, [...path, 'value']);
  }

  private value(rule: FieldRule, field: string, op: FilterOp, condition: Record<string, unknown>, path: (string | number)[]) {
    const value = condition.value;
    if (op === 'exists') {
      if (value !== undefined && typeof value !== 'boolean') this.add(path, 'exists takes true (the default) or false');
      return;
    }
    if (value === undefined) return this.add(path, `${op} needs a value`);
    if (op === 'in' || op === 'nin') {
      if (!Array.isArray(value)) return this.add(path, `${op} takes an array of values`);
      if (value.length === 0) return this.add(path, `${op} takes at least one value`);
      if (value.length > FILTER_LIMITS.maxInValues) return this.add(path, `${op} takes at most ${FILTER_LIMITS.maxInValues} values (${value.length} given)`);
      value.forEach((v, i) => {
        const problem = valueProblem(rule, field, op, v);
        if (problem) this.add([...path, i], problem);
      });
      return;
    }
    const problem = Array.isArray(value) ? `${op} takes one value (in and nin take a list)` : valueProblem(rule, field, op, value);
    if (problem) this.add(path, problem);
  }
}

/** Every problem of a filter, each with its path inside the filter; empty when it is fine. */
export function filterProblems(filter: unknown): FilterProblem[] {
  const checker = new FilterChecker();
  checker.node(filter, [], 0);
  if (checker.conditions > FILTER_LIMITS.maxConditions) {
    checker.problems.unshift({ path: [], message: `a filter holds at most ${FILTER_LIMITS.maxConditions} conditions (${checker.conditions} given)` });
  }
  return checker.problems;
}

// --- The schema --------------------------------------------------------------------------------

const scalar = z.union([z.string(), z.number(), z.boolean()]);
// Strict objects: a filter node holds nothing else (filterProblems refuses other keys), and so the
// shape reads the same as input and as output.
const conditionShape = z
  .strictObject({
    field: z.string().meta({ description: `One of ${FIELD_LIST}` }),
    op: z.enum(FILTER_OPS),
    value: z
      .union([scalar, z.array(scalar), z.strictObject({ within: z.string().meta({ description: 'e.g. `30d`; units m, h, d, w' }) })])
      .optional()
      .meta({ description: 'A value of the field; a list for `in` / `nin`; `true` / `false` for `exists` (default true); for times an ISO 8601 date-time or `{"within": "30d"}`' }),
  })
  .meta({ id: 'AudienceCondition', description: 'One condition on a device field' });

const filterShape: z.ZodType<AudienceFilter> = z
  .lazy(() =>
    z.union([
      conditionShape,
      z.strictObject({ and: z.array(filterShape) }).meta({ description: 'Every filter matches' }),
      z.strictObject({ or: z.array(filterShape) }).meta({ description: 'At least one filter matches' }),
      z.strictObject({ not: filterShape }).meta({ description: 'The filter does not match' }),
    ]),
  )
  .meta({
    id: 'AudienceFilter',
    description: `Selects devices: a condition, or and / or / not around filters; at most ${FILTER_LIMITS.maxDepth} levels of and / or / not, ${FILTER_LIMITS.maxConditions} conditions, ${FILTER_LIMITS.maxInValues} values in a list (docs/audiences.md#filters)`,
  });

/**
 * An audience filter. Checked by `filterProblems` first, so that each problem is reported with its
 * path (`filter.and.2.field`) rather than as a failed union; the recursive shape after it describes
 * the filter in the API document and types the result.
 */
export const audienceFilter = z.preprocess((value, ctx) => {
  for (const { path, message } of filterProblems(value)) ctx.addIssue({ code: 'custom', message, path, input: value });
  return value;
}, filterShape);
