/**
 * The README and docs/ as a newcomer reads them: a README that fits in five minutes, with a short
 * performance section, and each measured figure in one file only, so that a new measurement changes
 * one file and no commit exists only to copy figures from one document to another.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '..');

function markdownFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(relative);
    return entry.name.endsWith('.md') ? [relative] : [];
  });
}

const DOCUMENTS = ['README.md', ...markdownFiles('docs')];
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** The lines under a `## ` heading, up to the next heading of that level, without the blank ones at its end. */
function section(markdown: string, heading: string): string[] {
  const lines = markdown.split('\n');
  const start = lines.indexOf(`## ${heading}`);
  if (start < 0) throw new Error(`no "## ${heading}" section`);
  const next = lines.findIndex((line, i) => i > start && line.startsWith('## '));
  const body = lines.slice(start + 1, next < 0 ? lines.length : next);
  while (body.length && body[body.length - 1].trim() === '') body.pop();
  return body;
}

/**
 * A measured figure: a number with a decimal point, a thousands separator, a range or three digits,
 * followed by a unit of time, rate, share or size ("2,472 notifications/s", "0.5–0.8 s", "79.7 %",
 * "156 µs"). One- and two-digit integers ("60 s", "10 %", "31 KiB") are left out: most are settings,
 * repeated wherever each applies, and the rest too often equal by chance to tell apart.
 */
const NUMBER = String.raw`\d[\d,]*(?:\.\d+)?`;
const FIGURE = new RegExp(String.raw`(?<![\w.,–])(${NUMBER}(?:–${NUMBER})?) ?(%|ms|µs|s|[a-z]*/s|KiB|MiB|MB)(?![\w/])`, 'g');

function figures(markdown: string): string[] {
  return [...markdown.matchAll(FIGURE)].filter((m) => /[.,–]|\d{3}/.test(m[1])).map((m) => `${m[1]} ${m[2]}`);
}

/**
 * Numbers that look like figures and appear in several files on purpose, each with the files it may
 * appear in. Anything else in two files is a figure copied, and fails.
 */
const SHARED: Record<string, { files: string[]; why: string }> = {
  '1,000 sends/s': {
    why: 'the paced latency run’s offered rate, a parameter of a run that several records refer to',
    files: [
      'docs/benchmarks.md',
      'docs/decisions/api-send-path.md',
      'docs/decisions/cold-start.md',
      'docs/decisions/custom-plans.md',
      'docs/decisions/synchronous-commit.md',
      'docs/decisions/v8-flags.md',
    ],
  },
  '100 ms': { why: 'a sampling interval, not a result', files: ['docs/benchmarks.md', 'docs/decisions/cold-start.md'] },
  '128 MB': { why: 'the benchmark machine’s shared_buffers', files: ['docs/benchmarks.md', 'docs/decisions/device-attributes-storage.md'] },
  '0.7 s': {
    why: 'two different measurements: a worker’s start and a bitmap pass',
    files: ['docs/decisions/device-attributes-storage.md', 'docs/decisions/one-user-drain.md'],
  },
  '265 ms': {
    why: 'two different measurements that came out the same: a p99 and a JIT compilation',
    files: ['docs/decisions/delivery-without-prisma.md', 'docs/decisions/overview-rollups.md'],
  },
};

describe('the README', () => {
  const readme = read('README.md');

  it('stays under 150 lines', () => {
    expect(readme.trimEnd().split('\n').length).toBeLessThan(150);
  });

  it('has a performance section of at most ten lines, with no figure: those live in docs/benchmarks.md', () => {
    const performance = section(readme, 'Performance');
    expect(performance.length).toBeGreaterThan(0);
    expect(performance.length).toBeLessThanOrEqual(10);
    expect(figures(performance.join('\n'))).toEqual([]);
    expect(performance.join('\n')).toContain('docs/benchmarks.md');
  });
});

describe('the figures of the docs', () => {
  it('finds the figures it looks for', () => {
    expect(figures('2,472 notifications/s, 0.5–0.8 s, 79.7 %, 156 µs of CPU, 980 KiB')).toEqual([
      '2,472 notifications/s',
      '0.5–0.8 s',
      '79.7 %',
      '156 µs',
      '980 KiB',
    ]);
    expect(figures('every 60 s, 10 % of them, 3 of 5, version 1.2.3, 500 users')).toEqual([]);
  });

  it('each appear in one file only', () => {
    const filesOf = new Map<string, Set<string>>();
    for (const file of DOCUMENTS) {
      for (const figure of figures(read(file))) filesOf.set(figure, (filesOf.get(figure) ?? new Set()).add(file));
    }
    expect(filesOf.size).toBeGreaterThan(100);
    const copied = [...filesOf]
      .filter(([figure, files]) => files.size > 1 && [...files].some((file) => !SHARED[figure]?.files.includes(file)))
      .map(([figure, files]) => `${figure}: ${[...files].join(', ')}`);
    expect(copied).toEqual([]);
  });
});
