#!/usr/bin/env node
// Generates the Prisma client (packages/db/src/generated).
// The Prisma 7 CLI insists on downloading its native schema engine from binaries.prisma.sh before
// any command, although `generate` never runs it (the client uses the bundled WASM query compiler).
// Machines without that host (CI here, air-gapped builds) would fail, so unless the caller already
// provides an engine we point the CLI at a stub. Migrations do not use the CLI: see packages/db/src/migrate.ts.
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: '1' };
if (!env.PRISMA_SCHEMA_ENGINE_BINARY) env.PRISMA_SCHEMA_ENGINE_BINARY = process.execPath;
const cli = require.resolve('prisma/build/index.js', { paths: [path.join(__dirname, '..')] });
const res = spawnSync(process.execPath, [cli, 'generate'], { stdio: 'inherit', env, cwd: path.join(__dirname, '..') });
process.exit(res.status ?? 1);
