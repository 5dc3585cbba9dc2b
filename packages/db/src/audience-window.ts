/**
 * Id windows for the keyset pages of a filtered audience (docs/decisions/device-attributes-storage.md).
 *
 * A page `… AND d."id" > $after ORDER BY d."id" LIMIT $n` walks the project's id index and drops
 * every device the filter does not match: a page of a 10 % audience reads ten devices for each one
 * it keeps. Bounded above as well (`AND d."id" <= $before`), a page can be answered from the filter's
 * own index instead — the tags' GIN index intersected with the id range (a BitmapAnd) — reading only
 * the matching devices of the window. Device ids are random (UUID version 4), so the matches are
 * spread evenly over the id space, and the density seen in one window sizes the next one to hold
 * about a page: a window that held fewer widens, one that held more narrows.
 */

const SPACE = 1n << 128n;
/** The first window: 1/1024 of the id space (about a thousand devices of a million). */
const FIRST_SHARE = 1024n;
/** A window grows at most this many times from one page to the next (an empty one too). */
const MAX_GROWTH = 16n;

/** A uuid as the 128-bit number its bytes spell, in the order Postgres sorts uuids. */
export const uuidToBigInt = (uuid: string): bigint => BigInt(`0x${uuid.replace(/-/g, '')}`);

/** The uuid whose bytes spell `n` (0 ≤ n < 2^128). */
export function bigIntToUuid(n: bigint): string {
  const hex = n.toString(16).padStart(32, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export class AudienceWindow {
  private width = SPACE / FIRST_SHARE;

  constructor(private readonly pageSize: number) {}

  /** The upper bound (inclusive) of the page after `after`; undefined once the window reaches the end of the id space. */
  before(after: string | undefined): string | undefined {
    const end = (after === undefined ? 0n : uuidToBigInt(after)) + this.width;
    return end >= SPACE - 1n ? undefined : bigIntToUuid(end);
  }

  /**
   * What the page (after, before] found: `rows` devices, the last of them `lastId`. A full page ended
   * at its last id, so the devices it covered span (after, lastId]; a short one covered its window.
   */
  observe(after: string | undefined, before: string | undefined, rows: number, lastId: string | undefined): void {
    const from = after === undefined ? 0n : uuidToBigInt(after);
    const full = rows >= this.pageSize && lastId !== undefined;
    if (!full && before === undefined) return;
    const span = (full ? uuidToBigInt(lastId) : uuidToBigInt(before!)) - from;
    const sized = rows === 0 ? span * MAX_GROWTH : (span * BigInt(this.pageSize)) / BigInt(rows);
    const next = sized > span * MAX_GROWTH ? span * MAX_GROWTH : sized;
    this.width = next < 1n ? 1n : next;
  }
}
