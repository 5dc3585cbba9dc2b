import { FILTER_FIELDS, filterProblems, TAG_FIELD_PREFIX, type AudienceCondition, type AudienceFilter, type FilterField, type FilterOp, type FilterScalar, type FilterValue } from '@herald/schemas';

/**
 * The segment form's model of a filter: rows of (field, operator, value) that all or any must match,
 * optionally negated — `{and|or: [conditions]}`, wrapped in `{not}`. Every other filter (nested
 * combinators, values the form cannot type) is edited as JSON. The API's own checker
 * (`filterProblems`) names what is wrong with each row, in the API's words.
 */
export type RowField = FilterField | 'tag';
/** The form's operators: the filter's, with `exists: false` as an operator of its own. */
export type RowOp = FilterOp | 'notExists';
/** How a row's value is read: a tag's type, or a time's form (`30d` ago, or a date). */
export type ValueKind = 'string' | 'number' | 'boolean' | 'relative' | 'date';

export interface FilterRow {
  field: RowField;
  tagKey: string;
  op: RowOp;
  kind: ValueKind;
  /** As typed: a list is comma-separated. */
  value: string;
}

export interface FilterForm {
  match: 'and' | 'or';
  negate: boolean;
  rows: FilterRow[];
}

export const FIELD_LABELS: Record<RowField, string> = {
  platform: 'Platform',
  userId: 'User id',
  tag: 'Tag',
  timezone: 'Time zone',
  locale: 'Locale',
  appVersion: 'App version',
  createdAt: 'First registered',
  lastSeenAt: 'Last seen',
};
export const ROW_FIELDS = Object.keys(FIELD_LABELS) as RowField[];

const isTime = (field: RowField) => field === 'createdAt' || field === 'lastSeenAt';
const isList = (op: RowOp) => op === 'in' || op === 'nin';

const OP_LABELS: Record<RowOp, string> = {
  eq: 'is',
  neq: 'is not',
  in: 'is one of',
  nin: 'is none of',
  exists: 'is set',
  notExists: 'is not set',
  gt: 'greater than',
  gte: 'at least',
  lt: 'less than',
  lte: 'at most',
};
const TIME_OP_LABELS: Partial<Record<RowOp, string>> = { gt: 'after', gte: 'on or after', lt: 'before', lte: 'on or before' };

export const opLabel = (field: RowField, op: RowOp) => (isTime(field) && TIME_OP_LABELS[op]) || OP_LABELS[op];

/** The operators a field takes, in the form's terms. */
export function opsOf(field: RowField): RowOp[] {
  const ops: readonly FilterOp[] = field === 'tag' ? Object.keys(OP_LABELS).filter((o) => o !== 'notExists') as FilterOp[] : FILTER_FIELDS[field].ops;
  return ops.flatMap((op): RowOp[] => (op === 'exists' ? ['exists', 'notExists'] : [op]));
}

/** The value kinds a field offers: a tag's type, or a time's form; one for the other fields. */
export function kindsOf(field: RowField): ValueKind[] {
  if (field === 'tag') return ['string', 'number', 'boolean'];
  if (isTime(field)) return ['relative', 'date'];
  return ['string'];
}
export const KIND_LABELS: Record<ValueKind, string> = { string: 'Text', number: 'Number', boolean: 'True / false', relative: 'Time ago', date: 'Date' };

export const newRow = (field: RowField = 'platform'): FilterRow => ({ field, tagKey: '', op: opsOf(field)[0], kind: kindsOf(field)[0], value: '' });

/** A row moved to another field: the operator and value kind kept when the field takes them. */
export function withField(row: FilterRow, field: RowField): FilterRow {
  const next = newRow(field);
  return { ...next, tagKey: row.tagKey, op: opsOf(field).includes(row.op) ? row.op : next.op, kind: kindsOf(field).includes(row.kind) ? row.kind : next.kind, value: row.value };
}

/** Whether the row's value is chosen from a list (platform, true / false) rather than typed. */
export const choices = (row: FilterRow): readonly string[] | undefined => {
  if (isList(row.op)) return undefined;
  if (row.field === 'platform') return ['android', 'ios', 'web'];
  if (row.field === 'tag' && row.kind === 'boolean') return ['true', 'false'];
  return undefined;
};
export const needsValue = (row: FilterRow) => row.op !== 'exists' && row.op !== 'notExists';

function scalarOf(row: FilterRow, text: string): FilterScalar | FilterValue {
  if (row.kind === 'relative') return { within: text.replace(/\s+/g, '') };
  // Not a number: kept as typed, so that the JSON view shows what was typed (rowErrors names it).
  if (row.kind === 'number') return text !== '' && Number.isFinite(Number(text)) ? Number(text) : text;
  if (row.kind === 'boolean') return text === 'true' ? true : text === 'false' ? false : text;
  return text;
}

/** The condition a row stands for (as it is: a wrong value is left for the checker to name). */
export function rowToCondition(row: FilterRow): AudienceCondition {
  const field = row.field === 'tag' ? `${TAG_FIELD_PREFIX}${row.tagKey.trim()}` : row.field;
  if (row.op === 'exists') return { field, op: 'exists' };
  if (row.op === 'notExists') return { field, op: 'exists', value: false };
  const text = row.value.trim();
  if (!isList(row.op)) return text === '' ? { field, op: row.op } : { field, op: row.op, value: scalarOf(row, text) };
  const items = text.split(',').map((s) => s.trim()).filter(Boolean);
  return { field, op: row.op, value: items.map((item) => scalarOf(row, item) as FilterScalar) };
}

export function formToFilter(form: FilterForm): AudienceFilter {
  const conditions = form.rows.map(rowToCondition);
  const inner: AudienceFilter = conditions.length === 1 ? conditions[0] : form.match === 'and' ? { and: conditions } : { or: conditions };
  return form.negate ? { not: inner } : inner;
}

/** Per row, the first problem of each of its parts (`field`, `op`, `value`), as the API would name it. */
export function rowErrors(row: FilterRow): Partial<Record<'tagKey' | 'op' | 'value', string>> {
  const out: Partial<Record<'tagKey' | 'op' | 'value', string>> = {};
  if (row.kind === 'number' && needsValue(row)) {
    const items = isList(row.op) ? row.value.split(',').map((s) => s.trim()).filter(Boolean) : [row.value.trim()];
    if (items.some((i) => i !== '' && !Number.isFinite(Number(i)))) out.value = 'Type a number, e.g. 5 or 2.5 (or choose Text)';
  }
  for (const { path, message } of filterProblems(rowToCondition(row))) {
    const part = path[0] === 'field' ? 'tagKey' : path[0] === 'op' ? 'op' : 'value';
    out[part] ??= message;
  }
  return out;
}

/** Problems of the whole form (before any row's): none, or that it has no condition. */
export const formErrors = (form: FilterForm) => (form.rows.length === 0 ? 'Add at least one condition' : undefined);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** How a value reads in the form's text box; undefined when the text would not read back the same. */
function textOf(value: unknown, kind: ValueKind): string | undefined {
  if (kind === 'relative') return isObject(value) && typeof value.within === 'string' ? value.within : undefined;
  if (kind === 'number') return typeof value === 'number' ? String(value) : undefined;
  if (kind === 'boolean') return typeof value === 'boolean' ? String(value) : undefined;
  if (typeof value !== 'string' || value !== value.trim() || value === '') return undefined;
  return value;
}

function kindOf(field: RowField, value: unknown): ValueKind {
  const first = Array.isArray(value) ? value[0] : value;
  if (isTime(field)) return isObject(first) ? 'relative' : 'date';
  if (field !== 'tag') return 'string';
  return typeof first === 'number' ? 'number' : typeof first === 'boolean' ? 'boolean' : 'string';
}

/** The row of a condition, or undefined when the form cannot show it as it is. */
export function conditionToRow(node: unknown): FilterRow | undefined {
  if (!isObject(node) || typeof node.field !== 'string' || typeof node.op !== 'string') return undefined;
  if (Object.keys(node).some((k) => k !== 'field' && k !== 'op' && k !== 'value')) return undefined;
  const tag = node.field.startsWith(TAG_FIELD_PREFIX);
  const field = (tag ? 'tag' : node.field) as RowField;
  if (!ROW_FIELDS.includes(field) || (field === 'tag') !== tag) return undefined;
  const tagKey = tag ? node.field.slice(TAG_FIELD_PREFIX.length) : '';
  if (node.op === 'exists') {
    if (node.value !== undefined && typeof node.value !== 'boolean') return undefined;
    return { ...newRow(field), tagKey, op: node.value === false ? 'notExists' : 'exists' };
  }
  const op = node.op as RowOp;
  if (!opsOf(field).includes(op)) return undefined;
  const kind = kindOf(field, node.value);
  if (isList(op)) {
    if (!Array.isArray(node.value)) return undefined;
    const texts = node.value.map((v) => textOf(v, kind));
    if (texts.some((t) => t === undefined || t.includes(','))) return undefined;
    return { field, tagKey, op, kind, value: texts.join(', ') };
  }
  const text = textOf(node.value, kind);
  return text === undefined ? undefined : { field, tagKey, op, kind, value: text };
}

/** The form of a filter, or undefined when the form cannot show it (it is then edited as JSON). */
export function filterToForm(filter: unknown): FilterForm | undefined {
  let negate = false;
  let node = filter;
  if (isObject(node) && Object.keys(node).length === 1 && 'not' in node) {
    negate = true;
    node = node.not;
  }
  if (!isObject(node)) return undefined;
  const keys = Object.keys(node);
  const match = keys.length === 1 && (keys[0] === 'and' || keys[0] === 'or') ? keys[0] : undefined;
  const list = match ? node[match] : [node];
  if (!Array.isArray(list) || list.length === 0) return undefined;
  const rows = list.map(conditionToRow);
  if (rows.some((r) => r === undefined)) return undefined;
  return { match: match ?? 'and', negate, rows: rows as FilterRow[] };
}

const OP_SIGNS: Record<FilterOp, string> = { eq: '=', neq: '≠', in: 'in', nin: 'not in', exists: 'exists', gt: '>', gte: '≥', lt: '<', lte: '≤' };

function valueText(value: unknown): string {
  if (Array.isArray(value)) return `(${value.map(valueText).join(', ')})`;
  if (isObject(value) && typeof value.within === 'string') return `${value.within} ago`;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** A filter in one line, for lists: `platform = ios and tags.plan in (pro, team)`. */
export function describeFilter(filter: unknown, nested = false): string {
  if (!isObject(filter)) return JSON.stringify(filter);
  if ('not' in filter) return `not ${describeFilter(filter.not, true)}`;
  for (const combinator of ['and', 'or'] as const) {
    const list = filter[combinator];
    if (Array.isArray(list)) {
      const text = list.map((f) => describeFilter(f, true)).join(` ${combinator} `);
      return nested && list.length > 1 ? `(${text})` : text;
    }
  }
  const { field, op, value } = filter as unknown as AudienceCondition;
  if (op === 'exists') return `${field} ${value === false ? 'not set' : 'set'}`;
  return `${field} ${OP_SIGNS[op] ?? op} ${valueText(value)}`;
}
