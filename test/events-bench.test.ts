import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * `pnpm bench:events` (docs/benchmarks.md#engagement-events), run tiny: it seeds deliveries, ingests
 * their events through an API process, reads the series and drops its database. Its figures are
 * printed, never asserted on.
 */
const ROOT = join(__dirname, '..');
const database = `herald_bench_events_${process.env.HERALD_TEST_RUN_ID ?? 'ci'}`;

it('ingests events through the API, prints the work per event and the series reads', async () => {
  const { stdout } = await promisify(execFile)(join(ROOT, 'node_modules/.bin/tsx'), [join(ROOT, 'scripts/bench/events.ts'), '--events', '2000', '--reads', '2', '--database', database], {
    cwd: ROOT,
    env: { ...process.env },
    timeout: 90_000,
  });
  expect(stdout).toMatch(/^ingested: [\d,]+ events\/s \(2,000 in [\d.]+ s; 2,000 accepted, 0 refused\)/m);
  expect(stdout).toMatch(/^per event: Postgres CPU .* µs, API CPU [\d.]+ µs; blocks touched/m);
  expect(stdout).toMatch(/^template series, today: sent 500, delivered 500, opened 500, clicked 500$/m);
  expect(stdout).toMatch(/^template series read .*: best [\d.]+ ms/m);
}, 120_000);
