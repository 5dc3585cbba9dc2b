import { z } from 'zod';

/**
 * What a device says about itself and its user, beside its token: `tags` set by the customer's
 * backend, and the device's `timezone`, `locale` and `appVersion`. Audience filters select devices by
 * them (audience-filter.ts); the rules are in docs/audiences.md#device-attributes.
 */
export const MAX_TAGS = 50;
export const TAG_KEY_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;
export const MAX_TAG_STRING = 256;
export const MAX_APP_VERSION = 32;
const MAX_ZONE_NAME = 64;
const MAX_LOCALE = 64;

export type TagValue = string | number | boolean;
/** A tag write: `null` removes the key. */
export type TagPatch = Record<string, TagValue | null>;

export const tagValue = z.union([z.string().max(MAX_TAG_STRING, `a tag string is at most ${MAX_TAG_STRING} characters`), z.number().finite('a tag number must be finite'), z.boolean()], {
  error: 'a tag value is a string, a finite number or a boolean',
});

const TAG_KEY_MESSAGE = 'a tag key is 1–64 letters, digits, _ . or -';
const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether a string may be a tag key. `__proto__` matches the pattern but cannot be an object's key in JavaScript. */
export const isTagKey = (key: string) => TAG_KEY_PATTERN.test(key) && key !== '__proto__';

/**
 * Tags as a write sends them: at most 50 keys, each value a tag value, or `null` to remove the key.
 * Checked here rather than by the record schema below (which describes them for the API document),
 * so that every problem is reported at once and names its key (`tags.plan`).
 */
export const tagPatch = z
  .preprocess(
    (value, ctx) => {
      if (!isPlainObject(value)) return value;
      const keys = Object.keys(value);
      if (keys.length > MAX_TAGS) ctx.addIssue({ code: 'custom', message: `at most ${MAX_TAGS} tags (${keys.length} given)`, input: value });
      for (const key of keys) {
        if (!isTagKey(key)) {
          ctx.addIssue({ code: 'custom', message: TAG_KEY_MESSAGE, path: [key], input: key });
          continue;
        }
        const checked = tagValue.nullable().safeParse(value[key]);
        for (const issue of checked.error?.issues ?? []) ctx.addIssue({ code: 'custom', message: issue.message, path: [key, ...issue.path], input: value[key] });
      }
      return value;
    },
    z.record(z.string().regex(TAG_KEY_PATTERN), tagValue.nullable(), { error: 'tags must be an object of key → value' }),
  )
  .meta({ description: `At most ${MAX_TAGS} keys matching \`[A-Za-z0-9_.-]{1,64}\`; a value is a string (≤ ${MAX_TAG_STRING} characters), a finite number or a boolean; \`null\` removes the key` });

// --- Time zones ------------------------------------------------------------------------------

/** Canonical spellings by lower-case name, for the names the runtime lists. */
let spellings: Map<string, string> | undefined;
const known = new Map<string, boolean>();

function spelling(name: string): string {
  spellings ??= new Map([...Intl.supportedValuesOf('timeZone'), 'UTC'].map((zone) => [zone.toLowerCase(), zone]));
  return spellings.get(name.toLowerCase()) ?? name;
}

/**
 * Whether the runtime knows this IANA zone: a name its `Intl.DateTimeFormat` accepts, so that what
 * Herald stores is what it can compute local times with. That is every zone of
 * `Intl.supportedValuesOf('timeZone')`, `UTC`, and the aliases the runtime resolves (`Etc/UTC`,
 * `US/Eastern`, `Asia/Calcutta`); offsets (`+05:00`), which newer runtimes also accept, are not zone names.
 */
export function isTimeZone(name: string): boolean {
  if (name.length > MAX_ZONE_NAME || !/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name)) return false;
  const cached = known.get(name);
  if (cached !== undefined) return cached;
  let valid = true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
  } catch {
    valid = false;
  }
  // Only valid names are remembered: their number is bounded by the runtime's zone data.
  if (valid) known.set(name, true);
  return valid;
}

/** A zone as Herald stores and compares it: a listed zone in its canonical spelling (`europe/berlin` → `Europe/Berlin`), an alias as sent. */
export const normalizeTimeZone = (name: string) => spelling(name);

export const timeZone = z
  .string({ error: 'timezone must be a string' })
  .refine(isTimeZone, 'timezone must be an IANA time zone the server knows, e.g. Europe/Berlin or UTC')
  .transform(normalizeTimeZone)
  .meta({ description: 'An IANA time zone, e.g. `Europe/Berlin`, `America/New_York`, `UTC`' });

// --- Locales ---------------------------------------------------------------------------------

/** The canonical form of a BCP 47 language tag (`en-us` → `en-US`), or `undefined` when it is none. */
export function canonicalLocale(tag: string): string | undefined {
  if (tag.length === 0 || tag.length > MAX_LOCALE) return undefined;
  try {
    const [canonical] = Intl.getCanonicalLocales(tag);
    return canonical && canonical.length <= MAX_LOCALE ? canonical : undefined;
  } catch {
    return undefined;
  }
}

export const locale = z
  .string({ error: 'locale must be a string' })
  .transform((tag, ctx) => canonicalLocale(tag) ?? (ctx.addIssue({ code: 'custom', message: 'locale must be a BCP 47 language tag, e.g. en-US or pt-BR' }), z.NEVER))
  .meta({ type: 'string', description: 'A BCP 47 language tag, e.g. `en-US`; stored in its canonical form' });

// --- App versions ----------------------------------------------------------------------------

export const appVersion = z
  .string({ error: 'appVersion must be a string' })
  .trim()
  .min(1, 'appVersion must not be empty')
  .max(MAX_APP_VERSION, `appVersion is at most ${MAX_APP_VERSION} characters`)
  .meta({ description: `The app's version, e.g. \`2.14.1\` (at most ${MAX_APP_VERSION} characters); compared as a version by filters` });

// --- A write of attributes -------------------------------------------------------------------

/**
 * The attributes a write may set. Each is optional: absent leaves the stored value as it is, `null`
 * clears it; `tags` merge into the stored ones (a `null` value removes its key).
 */
export const deviceAttributesPatch = {
  tags: tagPatch.optional(),
  timezone: timeZone.nullable().optional(),
  locale: locale.nullable().optional(),
  appVersion: appVersion.nullable().optional(),
};

export interface DeviceAttributesPatch {
  tags?: TagPatch;
  timezone?: string | null;
  locale?: string | null;
  appVersion?: string | null;
}

export const ATTRIBUTE_NAMES = ['tags', 'timezone', 'locale', 'appVersion'] as const;

/** Whether a write names at least one attribute (one that names none would change nothing). */
export const setsAttributes = (patch: DeviceAttributesPatch) => ATTRIBUTE_NAMES.some((name) => patch[name] !== undefined);
