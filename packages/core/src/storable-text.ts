/** A lone UTF-16 surrogate: half of a pair whose other half is missing. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Text someone else wrote (a receiver's answer, an error), as Postgres can store it: a `text` column
 * refuses NUL (`22021 invalid byte sequence`) and UTF-8 has no lone surrogates, so both become U+FFFD.
 * At most `maxChars` characters, never ending in half a surrogate pair.
 */
export function storableText(text: string, maxChars = Infinity): string {
  let kept = text.length > maxChars ? text.slice(0, maxChars) : text;
  // A cut between the two halves of a pair keeps neither.
  if (kept.length < text.length && /[\uD800-\uDBFF]$/.test(kept)) kept = kept.slice(0, -1);
  return kept.replace(/\0/g, '\uFFFD').replace(LONE_SURROGATE, '\uFFFD');
}
