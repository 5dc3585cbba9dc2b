import { createHash, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from 'pg';

/**
 * Applies prisma/migrations/<name>/migration.sql in order, each in its own transaction, under an
 * advisory lock so that several containers may run it at once.
 *
 * Why not `prisma migrate deploy`: the Prisma 7 CLI downloads a native schema engine from
 * binaries.prisma.sh, which air-gapped machines (and our CI) cannot reach. This runner keeps Prisma
 * Migrate's directory layout and its `_prisma_migrations` bookkeeping (same table, SHA-256 checksums),
 * so `prisma migrate deploy` can take over on a machine that has the engine.
 */

const LOCK_ID = 72_707_369; // arbitrary, constant: "herald migrations"

export interface MigrateResult {
  applied: string[];
  alreadyApplied: number;
}

export const defaultMigrationsDir = () => path.resolve(__dirname, '../../../prisma/migrations');

const databaseName = (databaseUrl: string) => decodeURIComponent(new URL(databaseUrl).pathname.replace(/^\//, ''));
const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** A connection to the server's `postgres` database, for creating and dropping others. */
async function adminClient(databaseUrl: string): Promise<Client> {
  const url = new URL(databaseUrl);
  url.pathname = '/postgres';
  const admin = new Client({ connectionString: url.toString() });
  await admin.connect();
  return admin;
}

/** Creates the database named in `databaseUrl` if it does not exist. */
export async function ensureDatabase(databaseUrl: string): Promise<boolean> {
  const name = databaseName(databaseUrl);
  if (!name) return false;
  const admin = await adminClient(databaseUrl);
  try {
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount) return false;
    await admin.query(`CREATE DATABASE ${quoteIdent(name)}`);
    return true;
  } catch (err) {
    if ((err as { code?: string }).code === '42P04') return false; // created concurrently
    throw err;
  } finally {
    await admin.end();
  }
}

/** Drops the database named in `databaseUrl`, closing its connections (tests and benchmarks). */
export async function dropDatabase(databaseUrl: string): Promise<void> {
  const admin = await adminClient(databaseUrl);
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(databaseName(databaseUrl))} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

/**
 * A database whose applied migrations are none of this version's: one migrated before the development
 * history was squashed into a baseline (docs/decisions/baseline-migration.md), or another application's.
 * Applying the baseline over it would fail at its first statement ("type already exists"); say why instead.
 */
const foreignHistory = (applied: string[]) =>
  `This database was migrated with migrations this version does not have (${applied.sort().slice(0, 3).join(', ')}${applied.length > 3 ? ', …' : ''}). ` +
  'If it is a development database from before the first release, drop it and run the migrations again (docs/decisions/baseline-migration.md).';

export async function migrate(databaseUrl: string, dir = defaultMigrationsDir()): Promise<MigrateResult> {
  const names = (await readdir(dir, { withFileTypes: true }))
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_ID]);
    await client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL,
      "checksum" VARCHAR(64) NOT NULL,
      "finished_at" TIMESTAMPTZ,
      "migration_name" VARCHAR(255) NOT NULL,
      "logs" TEXT,
      "rolled_back_at" TIMESTAMPTZ,
      "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
      "applied_steps_count" INTEGER NOT NULL DEFAULT 0
    )`);
    const { rows } = await client.query<{ migration_name: string; checksum: string }>(
      'SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
    );
    const done = new Map(rows.map((r) => [r.migration_name, r.checksum]));
    if (done.size > 0 && !names.some((name) => done.has(name))) throw new Error(foreignHistory([...done.keys()]));
    const applied: string[] = [];
    for (const name of names) {
      const sql = await readFile(path.join(dir, name, 'migration.sql'), 'utf8');
      const checksum = createHash('sha256').update(sql).digest('hex');
      const previous = done.get(name);
      if (previous !== undefined) {
        if (previous !== checksum) throw new Error(`Migration ${name} was modified after it was applied`);
        continue;
      }
      await client.query('BEGIN');
      try {
        await client.query(sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, finished_at, applied_steps_count) VALUES ($1, $2, $3, now(), 1)`,
          [randomUUID(), checksum, name],
        );
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw new Error(`Migration ${name} failed: ${(err as Error).message}`);
      }
      applied.push(name);
    }
    return { applied, alreadyApplied: done.size };
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [LOCK_ID]).catch(() => undefined);
    await client.end();
  }
}
