import { AppError, MAX_TAGS, appVersionKey, type DeviceAttributesPatch, type TagValue } from '@herald/core';
import { isCheckViolation } from '@herald/db';

/**
 * How a write of attributes changes a device, in SQL, for the three writes that take them
 * (register-device, a user's devices, many users' devices): one statement each, so that nothing is
 * half-written. The write's values are parameters (or columns of a JSON recordset) named by
 * `AttributeParams`; the stored row is `d`.
 */
export interface AttributeParams {
  /** The tags to set: the non-null entries (node-postgres sends an object as JSON). */
  setTags: Record<string, TagValue>;
  /** The tags to remove (the keys sent with `null`). */
  unsetTags: string[];
  hasTimezone: boolean;
  timezone: string | null;
  hasLocale: boolean;
  locale: string | null;
  hasAppVersion: boolean;
  appVersion: string | null;
  appVersionKey: string | null;
}

export const ATTRIBUTE_COLUMNS = ['tags', 'timezone', 'locale', 'appVersion', 'appVersionKey'] as const;
type AttributeColumn = (typeof ATTRIBUTE_COLUMNS)[number];

/** The parameters of a write: absent attributes keep their stored value, `null` clears one, tags merge. */
export function attributeParams(patch: DeviceAttributesPatch): AttributeParams {
  const tags = Object.entries(patch.tags ?? {});
  return {
    setTags: Object.fromEntries(tags.filter((entry): entry is [string, TagValue] => entry[1] !== null)),
    unsetTags: tags.filter(([, v]) => v === null).map(([k]) => k),
    hasTimezone: patch.timezone !== undefined,
    timezone: patch.timezone ?? null,
    hasLocale: patch.locale !== undefined,
    locale: patch.locale ?? null,
    hasAppVersion: patch.appVersion !== undefined,
    appVersion: patch.appVersion ?? null,
    appVersionKey: patch.appVersion ? appVersionKey(patch.appVersion) : null,
  };
}

/**
 * The value each attribute column takes, as SQL over the stored row `d` and the write's values
 * (`input(name)` is the SQL of one of them). `keepTags`: SQL of whether the stored tags stay (merged
 * with the write's) or are dropped first.
 */
export function nextAttributes(input: (name: keyof AttributeParams) => string, keepTags = 'true'): Record<AttributeColumn, string> {
  const choose = (has: keyof AttributeParams, value: keyof AttributeParams, column: AttributeColumn) => `CASE WHEN ${input(has)} THEN ${input(value)} ELSE d."${column}" END`;
  return {
    tags: `((CASE WHEN ${keepTags} THEN d."tags" ELSE '{}'::jsonb END || ${input('setTags')}) - ${input('unsetTags')})`,
    timezone: choose('hasTimezone', 'timezone', 'timezone'),
    locale: choose('hasLocale', 'locale', 'locale'),
    appVersion: choose('hasAppVersion', 'appVersion', 'appVersion'),
    appVersionKey: choose('hasAppVersion', 'appVersionKey', 'appVersionKey'),
  };
}

/** `"column" = value, …` of an UPDATE (or ON CONFLICT DO UPDATE) that applies `next`. */
export const assignments = (next: Record<string, string>) =>
  Object.entries(next)
    .map(([column, value]) => `"${column}" = ${value}`)
    .join(', ');

/** `"updatedAt"` of a write: now when one of the `next` values differs from the stored one, else as it was. */
export const touchedAt = (next: Record<string, string>) =>
  `"updatedAt" = CASE WHEN ${Object.entries(next)
    .map(([column, value]) => `(${value}) IS DISTINCT FROM d."${column}"`)
    .join(' OR ')} THEN now() ELSE d."updatedAt" END`;

/** The check that holds a device to at most 50 tags, whichever write merges them (the migration's CHECK). */
const TAGS_CHECK = 'Device_tags_check';

export const isTagsOverflow = (err: unknown) => isCheckViolation(err, TAGS_CHECK);

export const TAGS_OVERFLOW = `a device holds at most ${MAX_TAGS} tags: this write would leave more (remove some with null)`;

/** A catch handler: a write that would leave a device with too many tags is a 400 naming `path`. */
export const tagsOverflow =
  (path: string) =>
  (err: unknown): never => {
    if (isTagsOverflow(err)) throw AppError.badRequest(`Invalid request body: ${path}: ${TAGS_OVERFLOW}`, [{ path, message: TAGS_OVERFLOW }]);
    throw err;
  };
