#!/usr/bin/env node
// `pnpm lint`: the import graph of every workspace source file must have no cycle, and no file under
// packages/ may import one under apps/ (packages are what apps are built from, never the reverse);
// and no source under apps/ or packages/ may repeat six or more lines of another (jscpd), outside tests
// and generated code: what exists twice drifts apart.
// Imports between workspace packages (`@herald/*`) are not followed here: TypeScript's project
// references (tsconfig.build.json) already refuse a cycle between packages.
const { existsSync } = require('node:fs');
const path = require('node:path');
const { detectClones } = require('jscpd');
const madge = require('madge');

// The repository, or the tree given as the first argument (test/lint.test.ts lints fixtures).
const root = process.argv[2] ? path.resolve(process.argv[2]) : path.join(__dirname, '..');
const tsConfig = path.join(root, 'tsconfig.base.json');

async function main() {
  const dirs = ['apps', 'packages', 'scripts', 'test', 'deploy'].map((dir) => path.join(root, dir)).filter((dir) => existsSync(dir));
  const graph = await madge(dirs, {
    baseDir: root,
    fileExtensions: ['ts', 'tsx', 'cjs', 'js'],
    excludeRegExp: [/node_modules/, /[\\/]dist[\\/]/, /[\\/]generated[\\/]prisma[\\/]/, /\.d\.ts$/],
    ...(existsSync(tsConfig) ? { tsConfig } : {}),
    detectiveOptions: { ts: { skipTypeImports: false }, tsx: { skipTypeImports: false } },
  });
  const problems = [];
  for (const cycle of graph.circular()) problems.push(`import cycle: ${[...cycle, cycle[0]].join(' → ')}`);
  for (const [file, imports] of Object.entries(graph.obj())) {
    if (!file.startsWith('packages/')) continue;
    for (const imported of imports) if (imported.startsWith('apps/')) problems.push(`a package imports an app: ${file} → ${imported}`);
  }
  for (const clone of await copies()) problems.push(`repeated code: ${where(clone.duplicationA)} = ${where(clone.duplicationB)}`);
  const files = Object.keys(graph.obj()).length;
  if (problems.length) {
    console.error(problems.join('\n'));
    console.error(`lint: ${problems.length} problem(s) in ${files} files`);
    process.exit(1);
  }
  console.log(`lint: ${files} files, no import cycle, no package importing an app, no repeated code`);
}

/**
 * Identical runs of at least six lines in the sources of apps/ and packages/. jscpd also wants a run
 * to hold `minTokens` tokens; its default of 50 let six-line repeats of short lines through (a
 * transaction's commit/rollback/release, a zod field list), so the floor is lower: 35 tokens is
 * about six short lines of code.
 */
function copies() {
  return detectClones({
    path: ['apps', 'packages'].map((dir) => path.join(root, dir)).filter((dir) => existsSync(dir)),
    format: ['typescript', 'tsx'],
    minLines: 6,
    minTokens: 35,
    ignore: ['**/node_modules/**', '**/dist/**', '**/generated/**', '**/*.test.ts', '**/*.test.tsx', '**/test-helpers/**'],
    silent: true,
    reporters: [],
  });
}

const where = (d) => `${path.relative(root, d.sourceId)}:${d.start.line}-${d.end.line}`;

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
