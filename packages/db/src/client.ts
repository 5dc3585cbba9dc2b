import { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';
import { PrismaClient } from './generated/prisma/client';

export interface DbOptions {
  /** Connections in this process's pool. */
  poolSize?: number;
  /** How long a query waits for a connection or for Postgres to answer a connect, before failing (→ 503). */
  connectTimeoutMs?: number;
  /** Server-side cap on any one statement. */
  statementTimeoutMs?: number;
  /**
   * Plan every execution of a prepared statement with its parameters and the tables' current size
   * (`plan_cache_mode=force_custom_plan`). For the worker's few, large, named statements: a generic
   * plan cached while a table was small (a new deployment, a test) keeps its sequential scans once the
   * table has grown, until the next ANALYZE.
   */
  customPlans?: boolean;
  /**
   * Postgres' `random_page_cost` for this pool's connections. The default (4) prices an index lookup
   * as a read from a spinning disk; for statements that find a few hundred rows by key in hot tables,
   * 1.1 (the usual value for SSDs and cached data) keeps Postgres from scanning a whole table instead.
   */
  randomPageCost?: number;
  /**
   * `false`: Postgres plans no sequential scan where an index can answer (`enable_seqscan=off`). For
   * a pool whose every statement finds rows by key: its plans then read through an index whatever
   * the statistics say (a bulk just written, a table that a stale estimate calls small or a skewed one
   * calls mostly matching). A table no index can serve is still scanned.
   */
  seqScan?: boolean;
}

/**
 * The planner settings of a pool's connections. JIT is off for every pool: Herald's statements are
 * short, and compiling one whose estimate crossed `jit_above_cost` (an aggregate, a bulk's
 * statement over stale statistics) cost more than running it.
 */
export function plannerSettings(options: DbOptions = {}): Record<string, string> {
  return {
    jit: 'off',
    ...(options.customPlans ? { plan_cache_mode: 'force_custom_plan' } : {}),
    ...(options.randomPageCost !== undefined ? { random_page_cost: String(options.randomPageCost) } : {}),
    ...(options.seqScan === false ? { enable_seqscan: 'off' } : {}),
  };
}

export type Db = PrismaClient;
export type SqlPool = Pool;

const pools = new WeakMap<Db, Pool>();
const closings = new WeakMap<Db, Promise<void>>();

/** The Prisma client over node-postgres. Short timeouts so that a dead database answers 503 quickly. */
export function createDb(databaseUrl: string, options: DbOptions = {}): Db {
  const settings = Object.entries(plannerSettings(options)).map(([k, v]) => `-c ${k}=${v}`);
  const pool = new Pool({
    connectionString: databaseUrl,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 3000,
    statement_timeout: options.statementTimeoutMs ?? 15_000,
    idleTimeoutMillis: 30_000,
    options: settings.join(' '),
  });
  // An idle connection that dies (Postgres restarted) must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  // The pool is ended by closeDb, not by Prisma: Prisma ends an external pool only if it connected
  // through it, and a worker or a test may use the pool alone.
  // `minimal`: an error's message leaves out the code frame (source path and lines) that the default
  // format puts into every logged database error, such as each request's during an outage.
  const db = new PrismaClient({ adapter: new PrismaPg(pool), errorFormat: 'minimal' });
  pools.set(db, pool);
  return db;
}

/**
 * Disconnects Prisma and ends the node-postgres pool under it, closing every connection. (Prisma's
 * `$disconnect` alone leaves the pool open when no Prisma query ever ran: its idle connections would
 * keep the process alive for `idleTimeoutMillis` and be cut by the exit rather than closed.)
 */
export function closeDb(db: Db): Promise<void> {
  // One close per client, however many callers ask at once (node-postgres refuses a second `end`).
  let closing = closings.get(db);
  if (!closing) {
    closing = db.$disconnect().finally(() => sqlPool(db).end());
    closings.set(db, closing);
  }
  return closing;
}

/**
 * The node-postgres pool under `db`: the same connections, limits and timeouts. For the one statement
 * on the send path that runs for every request (the notification INSERT), where Prisma's per-query
 * work (about 0.35 ms of CPU, as much as the rest of the statement) shows in the API's latency.
 * Everything else goes through Prisma.
 */
export function sqlPool(db: Db): SqlPool {
  const pool = pools.get(db);
  if (!pool) throw new Error('sqlPool: this client was not made by createDb');
  return pool;
}
