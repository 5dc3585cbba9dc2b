/**
 * App versions compared as versions ("10.0" > "9.2", "1.2.10" > "1.2.9"), inside Postgres: each
 * version has a sort key, a string whose byte order (`COLLATE "C"`) is the versions' order, stored
 * beside the version and indexed (docs/audiences.md#app-versions).
 *
 * A version is `[v]N(.N)*[-pre.release][+build]`, as semver and the app stores write them, with any
 * number of numeric parts: missing parts count as 0 ("1.2" = "1.2.0"), leading zeros are ignored, a
 * pre-release sorts before its release (semver's rules: "1.0.0-beta.2" < "1.0.0-beta.11" <
 * "1.0.0-rc.1" < "1.0.0"), and build metadata is ignored. Anything else has no key: it is stored as
 * sent, and only `exists` and exact matches find it.
 */
const VERSION = /^[vV]?(\d+(?:\.\d+)*)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

// The key's alphabet, in byte order. A numeric part is a length character ('A' + length - 1) and its
// digits, so that a longer number sorts later and equal lengths sort by digit. After the numbers a
// release ends with RELEASE and a pre-release starts with PRE_RELEASE: both sort before a further
// numeric part ("1.2" < "1.2.1"), and a pre-release before its release. Pre-release identifiers are
// joined by SEPARATOR, below every character an identifier may hold, so that "alpha" < "alpha.1" <
// "alpha-x" as semver has it; a numeric identifier (NUMERIC, then length and digits) sorts before an
// alphanumeric one (ALPHANUMERIC, then its text).
const SEPARATOR = ' ';
const PRE_RELEASE = '!';
const RELEASE = '#';
const NUMERIC = '1';
const ALPHANUMERIC = '2';

/** The longest number a part may have: its length is one character of the key. */
const MAX_DIGITS = 60;

const stripZeros = (digits: string) => digits.replace(/^0+(?=\d)/, '');
const lengthChar = (digits: string) => String.fromCharCode(0x40 + digits.length);
const numberKey = (digits: string) => lengthChar(digits) + digits;

/** The sort key of a version, or `null` for a string that is no version in the sense above. */
export function appVersionKey(version: string): string | null {
  const match = VERSION.exec(version);
  if (!match) return null;
  const parts = match[1].split('.').map(stripZeros);
  if (parts.some((p) => p.length > MAX_DIGITS)) return null;
  while (parts.length && parts[parts.length - 1] === '0') parts.pop();
  const numbers = parts.map(numberKey).join('');
  if (match[2] === undefined) return numbers + RELEASE;
  const identifiers = match[2].split('.').map((id) => {
    if (!/^\d+$/.test(id)) return ALPHANUMERIC + id;
    const digits = stripZeros(id);
    return digits.length > MAX_DIGITS ? null : NUMERIC + numberKey(digits);
  });
  if (identifiers.includes(null)) return null;
  return numbers + PRE_RELEASE + identifiers.join(SEPARATOR);
}
