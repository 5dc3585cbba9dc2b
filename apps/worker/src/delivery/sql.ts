import type { Pool, PoolClient } from 'pg';
import { sqlState, type DbOptions } from '@herald/db';

/**
 * How the worker's statements run: through node-postgres directly (they run for every notification,
 * and Prisma's own work per query cost as much CPU as the statements themselves), named, and written
 * for many rows at once.
 */

/**
 * How the worker's pool plans: every execution with its own parameters, an index lookup priced as
 * the cached read it is, and never a sequential scan where an index can answer (docs/decisions/
 * hot-path-plans.md). The EXPLAIN test of the hot path plans under these same settings.
 */
export const WORKER_PLANNER: DbOptions = { customPlans: true, randomPageCost: 1.1, seqScan: false };

/**
 * An array parameter of uuids, integers or fixed words as Postgres' array literal, `{a,b,NULL}`: such
 * elements need no quoting, and node-postgres quotes and escapes every element of an array with two
 * regular expressions, which at thousands of ids a second cost the worker more than building the
 * statement. (Free text — claimants, provider message ids, errors — still goes through node-postgres.)
 */
export function arrayLiteral(values: readonly (string | number | null)[]): string {
  return `{${(values.includes(null) ? values.map((v) => v ?? 'NULL') : values).join(',')}}`;
}

/** The final status from the counters, once nothing is pending (SQL over the row `n` after `+ sent`). */
export const finalStatus = (sent: string) => `(CASE WHEN ${sent} = 0 THEN 'failed' WHEN ${sent} >= n."devices" THEN 'completed' ELSE 'partially_failed' END)::"NotificationStatus"`;

/**
 * Runs `work` in a transaction on a connection of its own: committed when `work` returns, rolled back
 * (and the error rethrown) when it throws; the connection goes back to the pool either way.
 */
export async function inTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/** A named statement: parsed once per connection, not at every call. */
export function query<R extends object>(pool: Pool, name: string, text: string, values: unknown[]): Promise<{ rows: R[] }> {
  return pool.query<R>({ name, text, values });
}

/**
 * A write statement, run again when Postgres broke a deadlock or a serialization conflict by
 * aborting it (two workers writing the same notifications' counters in different orders), or when
 * the connection failed (a busy or restarting database): the messages are sent, and their outcomes
 * are worth waiting for. Each statement is atomic and only moves rows that are still pending, so
 * running it again is safe.
 */
export async function write<R extends object>(pool: Pool, name: string, text: string, values: unknown[]): Promise<{ rows: R[] }> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await query<R>(pool, name, text, values);
    } catch (err) {
      const state = sqlState(err);
      const retryable = state === undefined || state === '40P01' || state === '40001' || state.startsWith('08') || state === '57P01';
      if (attempt >= 6 || !retryable) throw err;
      await new Promise((r) => setTimeout(r, 50 * 2 ** attempt * (0.5 + Math.random())));
    }
  }
}

/**
 * For a page read by a keyset in the order of an index: sorts and bitmap scans off for the statement's
 * transaction, so that the page reads its own rows through that index whatever the statistics say.
 * Over statistics taken before a fan-out wrote the rows, Postgres otherwise reads every matching row
 * and sorts them, for every page.
 */
export const INDEX_ORDER = 'SET LOCAL enable_sort = off; SET LOCAL enable_bitmapscan = off';

/** Runs one statement in a transaction of its own planned with `INDEX_ORDER`. */
export function inIndexOrder<R extends object>(pool: Pool, text: string, values: unknown[]): Promise<{ rows: R[] }> {
  return inTransaction(pool, async (client) => {
    await client.query(INDEX_ORDER);
    return client.query<R>(text, values);
  });
}
