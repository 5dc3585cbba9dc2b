/**
 * `pnpm lint` (scripts/lint.cjs) refuses what it promises to refuse: an import cycle, a package that
 * imports an app, and six identical lines in two sources of apps/ or packages/. Each case lints a
 * small tree of its own, beside one that passes, so that the lint is known to fail when it should.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const LINT = path.join(__dirname, '../scripts/lint.cjs');
const trees: string[] = [];
afterAll(() => trees.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** Lints a tree made of `files` (path → content) and returns its exit code and output. */
function lint(files: Record<string, string>) {
  const root = mkdtempSync(path.join(tmpdir(), 'herald-lint-'));
  trees.push(root);
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), content);
  }
  const run = spawnSync(process.execPath, [LINT, root], { encoding: 'utf8' });
  return { code: run.status, output: `${run.stdout}${run.stderr}` };
}

/** A function of eight distinct lines, the same wherever it is pasted. */
const FUNCTION = `export function summarise(values: number[]): { count: number; total: number; mean: number } {
  let total = 0;
  for (const value of values) total += value;
  const count = values.length;
  const mean = count === 0 ? 0 : total / count;
  const rounded = Math.round(mean * 100) / 100;
  return { count, total, mean: rounded };
}
`;

/** Tests may repeat what they check: a copy in a test file is no repeat. */
const CLEAN = {
  'apps/api/src/main.ts': `import { summarise } from '../../../packages/core/src/stats';\nexport const figures = summarise([1, 2, 3]);\n`,
  'packages/core/src/stats.ts': FUNCTION,
  'packages/core/src/stats.test.ts': FUNCTION,
};

// Each case starts Node with madge and jscpd: seconds, more on a busy machine.
jest.setTimeout(90_000);

it('passes a tree with none of the three, and a test that repeats a source', () => {
  const { code, output } = lint(CLEAN);
  expect(output).toContain('no import cycle, no package importing an app, no repeated code');
  expect(code).toBe(0);
});

it('refuses an import cycle', () => {
  const { code, output } = lint({
    ...CLEAN,
    'apps/api/src/a.ts': `import { b } from './b';\nexport const a = () => b();\n`,
    'apps/api/src/b.ts': `import { a } from './a';\nexport const b = (): number => (a ? 1 : 0);\n`,
  });
  expect(code).toBe(1);
  expect(output).toMatch(/import cycle: apps\/api\/src\/a\.ts → apps\/api\/src\/b\.ts → apps\/api\/src\/a\.ts/);
});

it('refuses a package that imports an app', () => {
  const { code, output } = lint({
    ...CLEAN,
    'packages/core/src/uses-app.ts': `import { figures } from '../../../apps/api/src/main';\nexport const again = figures;\n`,
  });
  expect(code).toBe(1);
  expect(output).toContain('a package imports an app: packages/core/src/uses-app.ts → apps/api/src/main.ts');
});

it('refuses six identical lines in two sources', () => {
  const { code, output } = lint({ ...CLEAN, 'apps/api/src/stats-copy.ts': FUNCTION });
  expect(code).toBe(1);
  expect(output).toMatch(/repeated code: (apps\/api\/src\/stats-copy\.ts|packages\/core\/src\/stats\.ts):\d+-\d+ = /);
});
