import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';

/**
 * The delivery benchmark is one command per mode (docs/benchmarks.md): each runs here, small, against
 * the built API, worker and emulator, and must print every figure it promises. Figures are never
 * asserted on here (the machine's speed is not the code's); that each run completes, delivers what
 * it counts and cleans up after itself is.
 */
const ROOT = join(__dirname, '..');
const run = promisify(execFile);
const database = `herald_bench_${process.env.HERALD_TEST_RUN_ID ?? 'ci'}`;

async function bench(...args: string[]): Promise<string> {
  const { stdout } = await run(join(ROOT, 'node_modules/.bin/tsx'), [join(ROOT, 'scripts/bench/delivery.ts'), '--database', database, ...args], {
    cwd: ROOT,
    env: { ...process.env },
    timeout: 110_000,
    maxBuffer: 10 * 1024 * 1024,
  });
  return stdout;
}

/** A figure printed on a line that starts with `label`: a number, with thousands separators allowed. */
function figure(output: string, label: string, pattern: RegExp): number {
  const line = output.split('\n').find((l) => l.startsWith(label));
  if (!line) throw new Error(`no "${label}" line in:\n${output}`);
  const match = pattern.exec(line);
  if (!match) throw new Error(`"${line}" does not match ${pattern}`);
  return Number(match[1].replace(/,/g, ''));
}

const number = String.raw`([\d,]+(?:\.\d+)?)`;

/** The lines every mode that drains deliveries prints: CPU, statements, RSS, and the bare client beside them. */
function expectCommonFigures(output: string) {
  expect(figure(output, 'worker CPU:', new RegExp(`${number} µs per delivery`))).toBeGreaterThan(0);
  expect(figure(output, 'Postgres statements:', new RegExp(`${number} per notification`))).toBeGreaterThan(0);
  expect(output).toMatch(/Postgres statements: .* per delivery/);
  const rss = /worker RSS: +start (\d+) MiB, peak (\d+) MiB, end (\d+) MiB/.exec(output);
  expect(rss).not.toBeNull();
  expect(Number(rss![2])).toBeGreaterThanOrEqual(Number(rss![1]));
  expect(figure(output, 'bare node:http2 client:', new RegExp(`${number} messages/s`))).toBeGreaterThan(0);
  expect(figure(output, 'ratio:', /([\d.]+) ?%/)).toBeGreaterThan(0);
}

async function databaseExists(name: string): Promise<boolean> {
  const db = new Client({ connectionString: process.env.DATABASE_URL });
  await db.connect();
  try {
    const { rows } = await db.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    return rows.length > 0;
  } finally {
    await db.end();
  }
}

describe('pnpm bench:delivery', () => {
  jest.setTimeout(120_000);

  it('one-user mode drains the sends and prints the drain rate beside the bare client', async () => {
    const output = await bench('--mode', 'one-user', '--notifications', '200');
    expect(output).toContain('200 sends to one user with one device each');
    expect(figure(output, 'one-user:', new RegExp(`${number} notifications/s drained`))).toBeGreaterThan(0);
    // Every notification is in one deliver job: at least one job, at most one per notification.
    const [, jobs, perJob] = /deliver jobs: +([\d,]+) for 200 notifications \(([\d.]+) per job: sends accepted together share one\)/.exec(output) ?? [];
    expect(Number(jobs)).toBeGreaterThanOrEqual(1);
    expect(Number(jobs)).toBeLessThanOrEqual(200);
    expect(Math.abs(Number(perJob) - 200 / Number(jobs))).toBeLessThanOrEqual(0.051);
    expect(output).toMatch(/progress \(s\): +worker ready after [\d.]+, first delivery after [\d.]+; from the first delivery to the last ([\d,]+ notifications\/s|within one look)/);
    expectCommonFigures(output);
    // The run checks itself: a notification not completed with exactly one sent delivery is reported.
    expect(output).not.toMatch(/not completed|wrong/i);
    expect(await databaseExists(database)).toBe(false);
  });

  it('one-user mode with one client: each send was admitted alone, so each has a deliver job of its own', async () => {
    const output = await bench('--mode', 'one-user', '--notifications', '100', '--clients', '1');
    expect(output).toMatch(/deliver jobs: +100 for 100 notifications \(1\.0 per job: sends accepted together share one\)/);
    expect(figure(output, 'one-user:', new RegExp(`${number} notifications/s drained`))).toBeGreaterThan(0);
    expect(output).not.toMatch(/not completed|wrong/i);
  });

  it('with --history, measures on top of that many deliveries of history, counts only its own sends and times the overview', async () => {
    const output = await bench('--mode', 'one-user', '--notifications', '100', '--history', '5000');
    expect(output).toMatch(/history: +5,000 deliveries of [\d,]+ notifications over 29 days/);
    expect(figure(output, 'one-user:', new RegExp(`${number} notifications/s drained`))).toBeGreaterThan(0);
    expect(output).toMatch(/deliver jobs: +[\d,]+ for 100 notifications/);
    expect(figure(output, 'overview:', new RegExp(`p50 ${number} ms`))).toBeGreaterThan(0);
    expect(output).not.toMatch(/not completed|wrong/i);
  });

  it('bulk mode delivers every message and prints the rate, its progress and the time to delivery', async () => {
    const output = await bench('--deliveries', '2000');
    expect(output).toContain('2 bulk sends × 500 users × 2 devices = 2,000 deliveries');
    expect(figure(output, 'bulk:', new RegExp(`${number} deliveries/s`))).toBeGreaterThan(0);
    expect(output).toMatch(/time to delivery: +p50 \d+ ms, p99 \d+ ms/);
    expect(output).toMatch(/progress \(s\): +first delivery after [\d.]+; each tenth of them after ([\d.]+, ){9}[\d.]+/);
    expect(output).toMatch(/worker CPU \(ms\) by progress: (\d+, ){9}\d+ \(from the first send\)/);
    // The worker's FCM budget is lifted (the bare client has none), and the run says so.
    expect(output).toContain('FCM_RATE_PER_MINUTE=1,000,000,000 (lifted: the run measures the worker, not the quota)');
    expectCommonFigures(output);
    expect(await databaseExists(database)).toBe(false);
  });

  it('broadcast mode delivers to all and to the 10 % tag, and prints its progress, statements and page plans', async () => {
    const output = await bench('--mode', 'broadcast', '--devices', '3000');
    expect(figure(output, 'broadcast (all):', new RegExp(`${number} deliveries/s`))).toBeGreaterThan(0);
    expect(output).toMatch(/first message at the emulator after [\d.]+ s/);
    expect(output).toMatch(/broadcast to the 10 % filter: 300 deliveries in [\d.]+ s/);
    expect(output).toMatch(/planned \(fan-out\) \/ delivered, by tenth of the deliveries: ([\d.]+ s [\d.]+%, ){9}[\d.]+ s [\d.]+%/);
    expect(output).toMatch(/page of the 10 % filter, id window \(the fan-out\): [\d,]+ devices kept, [\d,]+ read and dropped, [\d,]+ buffers/);
    expect(output).toMatch(/page of the 10 % filter, plain keyset page: [\d,]+ devices kept/);
    expect(output).toMatch(/Postgres statements by time[^\n]*\n +[\d,]+ × +[\d.]+ ms, max +\d+ ms +herald_/);
    expect(output).toMatch(/API RSS peak: +\d+ MiB/);
    expectCommonFigures(output);
    expect(await databaseExists(database)).toBe(false);
  });

  it('latency mode prints the percentiles from POST to the emulator receipt', async () => {
    const output = await bench('--mode', 'latency', '--rate', '20', '--seconds', '2');
    expect(figure(output, 'latency:', new RegExp(`${number} sends/s offered`))).toBeGreaterThan(0);
    expect(output).toMatch(/p50 \d+ ms/);
    expect(output).toMatch(/p99 \d+ ms/);
    expect(await databaseExists(database)).toBe(false);
  });
});
