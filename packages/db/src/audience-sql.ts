import type { QueryConfig } from 'pg';
import {
  AppError,
  TAG_FIELD_PREFIX,
  appVersionKey,
  canonicalLocale,
  filterProblems,
  normalizeTimeZone,
  withinMs,
  type AudienceCondition,
  type AudienceFilter,
  type FilterScalar,
  type RelativeTime,
} from '@herald/core';

/**
 * Audience filters (packages/schemas/src/audience-filter.ts) compiled into SQL over "Device" (alias `d`):
 * one parameterised statement, scoped by the project first. Identifiers come from the tables below,
 * never from the filter; every value of the filter is a parameter.
 *
 * Every condition compiles to an expression that is never NULL, so that `not` is the exact complement
 * of what it wraps: a device without the tag or attribute a condition names fails `eq`, `in`, `exists`
 * and the orderings, and passes `neq` and `nin` (docs/audiences.md#filters). Positive conditions keep
 * the forms Postgres's indexes serve: `tags @> …` and `tags ? …` (the project's GIN index), `=` and
 * ranges on the columns.
 */
export interface AudienceOptions {
  /** The instant relative times (`{"within": "30d"}`) count back from; a broadcast passes its own, so that every page sees the same audience. Default: now. */
  now?: Date;
  /** Where the filter sits in the request, for the paths of its problems (default `filter`). */
  path?: string;
}

/** The columns a page may read, by name. */
export const AUDIENCE_COLUMNS = {
  id: 'd."id"',
  userId: 'd."userId"',
  deviceToken: 'd."deviceToken"',
  provider: 'd."provider"',
  platform: 'd."platform"',
  tags: 'd."tags"',
  timezone: 'd."timezone"',
  locale: 'd."locale"',
  appVersion: 'd."appVersion"',
  createdAt: 'd."createdAt"',
  lastSeenAt: 'd."lastSeenAt"',
} as const;
export type AudienceColumn = keyof typeof AUDIENCE_COLUMNS;

const TEXT_COLUMNS = { platform: 'd."platform"', userId: 'd."userId"' } as const;
const OPTIONAL_TEXT_COLUMNS = { timezone: 'd."timezone"', locale: 'd."locale"' } as const;
const TIME_COLUMNS = { createdAt: 'd."createdAt"', lastSeenAt: 'd."lastSeenAt"' } as const;
const ORDER_SQL = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

/** The statement's parameters; `$1` is always the project. */
class Params {
  readonly values: unknown[];
  constructor(projectId: string) {
    this.values = [projectId];
  }
  add(value: unknown, type: string): string {
    this.values.push(value);
    return `$${this.values.length}::${type}`;
  }
}

const isRelative = (value: unknown): value is RelativeTime => typeof value === 'object' && value !== null && !Array.isArray(value);
const asList = (value: AudienceCondition['value']) => (Array.isArray(value) ? value : [value]) as FilterScalar[];

class Compiler {
  constructor(
    private readonly params: Params,
    private readonly now: Date,
  ) {}

  node(filter: AudienceFilter): string {
    if ('and' in filter) return `(${filter.and.map((f) => this.node(f)).join(' AND ')})`;
    if ('or' in filter) return `(${filter.or.map((f) => this.node(f)).join(' OR ')})`;
    if ('not' in filter) return `(NOT ${this.node(filter.not)})`;
    return this.condition(filter);
  }

  private condition(c: AudienceCondition): string {
    switch (c.op) {
      case 'neq':
        return `(NOT ${this.condition({ ...c, op: 'eq' })})`;
      case 'nin':
        return `(NOT ${this.condition({ ...c, op: 'in' })})`;
      case 'exists':
        return c.value === false ? `(NOT ${this.condition({ ...c, value: true })})` : this.exists(c.field);
      default:
        if (c.field.startsWith(TAG_FIELD_PREFIX)) return this.tag(c.field.slice(TAG_FIELD_PREFIX.length), c);
        if (Object.hasOwn(TEXT_COLUMNS, c.field)) return this.text(TEXT_COLUMNS[c.field as keyof typeof TEXT_COLUMNS], asList(c.value) as string[], c.op === 'in');
        if (Object.hasOwn(OPTIONAL_TEXT_COLUMNS, c.field)) {
          const normalize = c.field === 'timezone' ? normalizeTimeZone : (v: string) => canonicalLocale(v) ?? v;
          const column = OPTIONAL_TEXT_COLUMNS[c.field as keyof typeof OPTIONAL_TEXT_COLUMNS];
          return `(${column} IS NOT NULL AND ${this.text(column, (asList(c.value) as string[]).map(normalize), c.op === 'in')})`;
        }
        if (c.field === 'appVersion') return this.appVersion(c);
        if (Object.hasOwn(TIME_COLUMNS, c.field)) return this.time(TIME_COLUMNS[c.field as keyof typeof TIME_COLUMNS], c);
        throw new Error(`audience filter: no column for field ${c.field}`);
    }
  }

  private exists(field: string): string {
    if (field.startsWith(TAG_FIELD_PREFIX)) return `(d."tags" ? ${this.params.add(field.slice(TAG_FIELD_PREFIX.length), 'text')})`;
    if (field === 'timezone' || field === 'locale') return `(${OPTIONAL_TEXT_COLUMNS[field]} IS NOT NULL)`;
    if (field === 'appVersion') return '(d."appVersion" IS NOT NULL)';
    throw new Error(`audience filter: exists on ${field}`);
  }

  private text(column: string, values: string[], list: boolean): string {
    return list ? `${column} = ANY(${this.params.add(values, 'text[]')})` : `${column} = ${this.params.add(values[0], 'text')}`;
  }

  /** A version with a sort key compares by it ("1.2" = "1.2.0"); any other string compares as it was stored. */
  private appVersion(c: AudienceCondition): string {
    const values = (asList(c.value) as string[]).map((v) => v.trim());
    if (Object.hasOwn(ORDER_SQL, c.op)) {
      const key = appVersionKey(values[0]);
      return `(d."appVersionKey" IS NOT NULL AND d."appVersionKey" ${ORDER_SQL[c.op as keyof typeof ORDER_SQL]} ${this.params.add(key, 'text')} COLLATE "C")`;
    }
    const keys = values.map(appVersionKey).filter((k): k is string => k !== null);
    const raw = values.filter((v) => appVersionKey(v) === null);
    const parts = [
      ...(keys.length ? [`(d."appVersionKey" IS NOT NULL AND d."appVersionKey" = ANY(${this.params.add(keys, 'text[]')}))`] : []),
      ...(raw.length ? [`(d."appVersion" IS NOT NULL AND d."appVersion" = ANY(${this.params.add(raw, 'text[]')}))`] : []),
    ];
    return parts.length === 1 ? parts[0] : `(${parts.join(' OR ')})`;
  }

  private time(column: string, c: AudienceCondition): string {
    const value = c.value;
    const instant = isRelative(value) ? new Date(this.now.getTime() - withinMs(value.within)!) : new Date(String(value));
    return `${column} ${ORDER_SQL[c.op as keyof typeof ORDER_SQL]} ${this.params.add(instant.toISOString(), 'timestamptz')}`;
  }

  /**
   * Equality is containment (`tags @> {"plan": "pro"}`): types never convert, so "5" does not equal
   * 5. An ordering holds only for a tag of the value's type: numbers by value, strings by code point.
   */
  private tag(key: string, c: AudienceCondition): string {
    const entry = (v: FilterScalar) => JSON.stringify({ [key]: v });
    if (c.op === 'eq') return `(d."tags" @> ${this.params.add(entry(c.value as FilterScalar), 'jsonb')})`;
    if (c.op === 'in') return `(d."tags" @> ANY(${this.params.add(asList(c.value).map(entry), 'jsonb[]')}))`;
    const op = ORDER_SQL[c.op as keyof typeof ORDER_SQL];
    const k = this.params.add(key, 'text');
    if (typeof c.value === 'number') {
      return `(jsonb_typeof(d."tags" -> ${k}) IS NOT DISTINCT FROM 'number' AND (d."tags" -> ${k}) ${op} ${this.params.add(JSON.stringify(c.value), 'jsonb')})`;
    }
    return `(jsonb_typeof(d."tags" -> ${k}) IS NOT DISTINCT FROM 'string' AND (d."tags" ->> ${k}) COLLATE "C" ${op} ${this.params.add(c.value, 'text')} COLLATE "C")`;
  }
}

/**
 * The WHERE clause of a project's devices that match `filter` (all of them without one), and its
 * parameters. A filter is checked again here: any problem is a 400 naming its path.
 */
export function audienceWhere(projectId: string, filter: AudienceFilter | undefined, options: AudienceOptions = {}) {
  const params = new Params(projectId);
  if (filter === undefined) return { where: 'd."projectId" = $1::uuid', params };
  const problems = filterProblems(filter);
  if (problems.length) {
    const prefix = options.path ?? 'filter';
    const details = problems.map((p) => ({ path: [prefix, ...p.path].filter((s) => s !== '').join('.'), message: p.message }));
    throw AppError.badRequest(`Invalid filter: ${details[0].path}: ${details[0].message}`, details);
  }
  const condition = new Compiler(params, options.now ?? new Date()).node(filter);
  return { where: `d."projectId" = $1::uuid AND ${condition}`, params };
}

export interface AudienceCount {
  devices: number;
  users: number;
  byPlatform: { android: number; ios: number; web: number };
}

/**
 * Counts a project's matching devices, their distinct users and the devices per platform, in one
 * statement. Without a filter the users are counted from the (projectId, userId) index alone; with
 * one, in the same pass as the devices (measured: docs/decisions/device-attributes-storage.md).
 */
export function audienceCountStatement(projectId: string, filter: AudienceFilter | undefined, options: AudienceOptions = {}): QueryConfig {
  const { where, params } = audienceWhere(projectId, filter, options);
  const users = filter === undefined ? `(SELECT count(*) FROM (SELECT DISTINCT u."userId" FROM "Device" u WHERE u."projectId" = $1::uuid) s)` : `count(DISTINCT d."userId" COLLATE "C")`;
  return {
    text: `SELECT count(*)::int AS "devices", ${users}::int AS "users",
      count(*) FILTER (WHERE d."platform" = 'android')::int AS "android",
      count(*) FILTER (WHERE d."platform" = 'ios')::int AS "ios",
      count(*) FILTER (WHERE d."platform" = 'web')::int AS "web"
      FROM "Device" d WHERE ${where}`,
    values: params.values,
  };
}

export const toAudienceCount = (row: { devices: number; users: number; android: number; ios: number; web: number }): AudienceCount => ({
  devices: row.devices,
  users: row.users,
  byPlatform: { android: row.android, ios: row.ios, web: row.web },
});

export interface AudienceSelectOptions extends AudienceOptions {
  columns?: readonly AudienceColumn[];
}

const selectList = (columns: readonly AudienceColumn[] = ['id', 'userId', 'platform']) => columns.map((name) => `${AUDIENCE_COLUMNS[name]} AS "${name}"`).join(', ');

/**
 * Every matching device of a project in one statement, unordered: to take a snapshot of an audience
 * in one pass (`INSERT INTO … SELECT …`), which reads only the matching devices where an index serves
 * the filter, where keyset pages over a selective filter read the devices between matches too
 * (docs/decisions/device-attributes-storage.md).
 */
export function audienceSelectStatement(projectId: string, filter: AudienceFilter | undefined, options: AudienceSelectOptions = {}): QueryConfig {
  const { where, params } = audienceWhere(projectId, filter, options);
  return { text: `SELECT ${selectList(options.columns)} FROM "Device" d WHERE ${where}`, values: params.values };
}

export interface AudiencePageOptions extends AudienceSelectOptions {
  /** The last id of the previous page; absent for the first page. */
  after?: string;
  /** An upper bound on the ids (inclusive), so that a selective filter's index can answer the page (audience-window.ts). */
  before?: string;
  limit: number;
}

/**
 * One keyset page of a project's matching devices, in id order: `… AND d."id" > $after ORDER BY d."id"
 * LIMIT $limit`. Streaming an audience page by page holds one page in memory whatever its size; the
 * next page starts after the last id of this one (or after `before`, when the window held less than
 * a page).
 */
export function audiencePageStatement(projectId: string, filter: AudienceFilter | undefined, options: AudiencePageOptions): QueryConfig {
  const { where, params } = audienceWhere(projectId, filter, options);
  const after = options.after === undefined ? '' : ` AND d."id" > ${params.add(options.after, 'uuid')}`;
  const before = options.before === undefined ? '' : ` AND d."id" <= ${params.add(options.before, 'uuid')}`;
  const limit = params.add(options.limit, 'int');
  return { text: `SELECT ${selectList(options.columns)} FROM "Device" d WHERE ${where}${after}${before} ORDER BY d."id" LIMIT ${limit}`, values: params.values };
}
