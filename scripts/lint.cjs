#!/usr/bin/env node
// `pnpm lint`: the import graph of every workspace source file must have no cycle, and no file under
// packages/ may import one under apps/ (packages are what apps are built from, never the reverse).
// Imports between workspace packages (`@herald/*`) are not followed here: TypeScript's project
// references (tsconfig.build.json) already refuse a cycle between packages.
const path = require('node:path');
const madge = require('madge');

const root = path.join(__dirname, '..');

async function main() {
  const graph = await madge(['apps', 'packages', 'scripts', 'test', 'deploy'], {
    baseDir: root,
    fileExtensions: ['ts', 'tsx', 'cjs', 'js'],
    excludeRegExp: [/node_modules/, /[\\/]dist[\\/]/, /[\\/]generated[\\/]prisma[\\/]/, /\.d\.ts$/],
    tsConfig: path.join(root, 'tsconfig.base.json'),
    detectiveOptions: { ts: { skipTypeImports: false }, tsx: { skipTypeImports: false } },
  });
  const problems = [];
  for (const cycle of graph.circular()) problems.push(`import cycle: ${[...cycle, cycle[0]].join(' → ')}`);
  for (const [file, imports] of Object.entries(graph.obj())) {
    if (!file.startsWith('packages/')) continue;
    for (const imported of imports) if (imported.startsWith('apps/')) problems.push(`a package imports an app: ${file} → ${imported}`);
  }
  const files = Object.keys(graph.obj()).length;
  if (problems.length) {
    console.error(problems.join('\n'));
    console.error(`lint: ${problems.length} problem(s) in ${files} files`);
    process.exit(1);
  }
  console.log(`lint: ${files} files, no import cycle, no package importing an app`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
