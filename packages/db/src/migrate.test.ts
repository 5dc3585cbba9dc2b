import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { defaultMigrationsDir, dropDatabase, ensureDatabase, migrate } from './migrate';

/** A database of its own on the run's server, beside the run's, and a directory of migrations. */
let databaseUrl: string;
let dir: string;

beforeEach(async () => {
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `${url.pathname}_migrate_${randomBytes(4).toString('hex')}`;
  databaseUrl = url.toString();
  await ensureDatabase(databaseUrl);
  dir = await mkdtemp(path.join(tmpdir(), 'herald-migrations-'));
});

afterEach(async () => {
  await dropDatabase(databaseUrl);
  await rm(dir, { recursive: true, force: true });
});

async function write(name: string, sql: string) {
  await mkdir(path.join(dir, name), { recursive: true });
  await writeFile(path.join(dir, name, 'migration.sql'), sql);
}

async function query<T extends object>(sql: string): Promise<T[]> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

it("applies the repository's migrations once, recording each with its checksum as Prisma Migrate does", async () => {
  const names = (await readdir(defaultMigrationsDir())).sort();
  expect(await migrate(databaseUrl)).toEqual({ applied: names, alreadyApplied: 0 });
  expect(await migrate(databaseUrl)).toEqual({ applied: [], alreadyApplied: names.length });
  const rows = await query<{ migration_name: string; checksum: string }>('SELECT migration_name, checksum FROM "_prisma_migrations" ORDER BY migration_name');
  expect(rows.map((r) => r.migration_name)).toEqual(names);
  for (const row of rows) expect(row.checksum).toMatch(/^[0-9a-f]{64}$/);
});

it('refuses a migration changed after it was applied', async () => {
  await write('20260101000000_first', 'CREATE TABLE "A" (id int);');
  await migrate(databaseUrl, dir);
  await write('20260101000000_first', 'CREATE TABLE "A" (id bigint);');
  await expect(migrate(databaseUrl, dir)).rejects.toThrow('Migration 20260101000000_first was modified after it was applied');
});

it('rolls a failing migration back and applies nothing after it', async () => {
  await write('20260101000000_first', 'CREATE TABLE "A" (id int);');
  await write('20260102000000_broken', 'CREATE TABLE "B" (id int); SELECT no_such_function();');
  await write('20260103000000_third', 'CREATE TABLE "C" (id int);');
  await expect(migrate(databaseUrl, dir)).rejects.toThrow(/^Migration 20260102000000_broken failed: function no_such_function\(\) does not exist/);
  const tables = await query<{ table_name: string }>(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`);
  expect(tables.map((t) => t.table_name)).toEqual(['A', '_prisma_migrations']);
});

it('refuses a database migrated with a history this version does not have (a development database from before the baseline), applying nothing', async () => {
  await write('20250101000000_init', 'CREATE TABLE "Old" (id int);');
  await write('20250102000000_tweak', 'ALTER TABLE "Old" ADD COLUMN x int;');
  await migrate(databaseUrl, dir);
  await rm(dir, { recursive: true });
  await write('20260101000000_baseline', 'CREATE TABLE "Old" (id int, x int);');
  await expect(migrate(databaseUrl, dir)).rejects.toThrow(
    'This database was migrated with migrations this version does not have (20250101000000_init, 20250102000000_tweak). ' +
      'If it is a development database from before the first release, drop it and run the migrations again (docs/decisions/baseline-migration.md).',
  );
  const applied = await query<{ migration_name: string }>('SELECT migration_name FROM "_prisma_migrations" ORDER BY 1');
  expect(applied.map((r) => r.migration_name)).toEqual(['20250101000000_init', '20250102000000_tweak']);
});
