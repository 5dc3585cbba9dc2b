import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';

/**
 * `pnpm bench:audience` (docs/decisions/device-attributes-storage.md), run tiny: it seeds, counts and
 * pages through a few hundred devices, prints a figure and a plan for every statement, and drops its
 * database. Its figures are never asserted on.
 */
const ROOT = join(__dirname, '..');
const database = `herald_bench_audience_${process.env.HERALD_TEST_RUN_ID ?? 'ci'}`;

it('seeds, counts and streams an audience, prints every plan, and cleans up', async () => {
  const { stdout } = await promisify(execFile)(join(ROOT, 'node_modules/.bin/tsx'), [join(ROOT, 'scripts/bench/audience.ts'), '--devices', '500', '--runs', '1', '--page', '100', '--database', database], {
    cwd: ROOT,
    env: { ...process.env },
    timeout: 60_000,
  });
  expect(stdout).toMatch(/audience benchmark: 500 devices in the project/);
  for (const label of ['all devices', 'tags.plan eq "pro"', 'lastSeenAt gte {within: 30d}', 'appVersion gte "12.5"', 'tags.score gt 900']) {
    expect(stdout).toMatch(new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}.*: best [\\d.]+ ms, median [\\d.]+ ms; [\\d,]+ devices, [\\d,]+ users`, 'm'));
  }
  expect(stdout.match(/Execution Time/g)?.length).toBeGreaterThanOrEqual(11);
  expect(stdout).toMatch(/all devices: .*\n[\s\S]*streamed: 500 devices in 5 pages/);
  const admin = new Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  try {
    expect((await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database])).rowCount).toBe(0);
  } finally {
    await admin.end();
  }
}, 90_000);
