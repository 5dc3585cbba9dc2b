#!/usr/bin/env node
// `pnpm dev` (after `pnpm build`): migrates the database, then runs the built API and worker side by
// side, their JSON log lines pretty-printed (pino-pretty, here only: production logs stay JSON) and
// prefixed with the process; Ctrl-C stops both. DATABASE_URL and REDIS_URL are required by the
// processes themselves; here, unset, they name the local servers.
const { spawn, spawnSync } = require('node:child_process');
const path = require('node:path');
const { prettyFactory } = require('pino-pretty');

const pretty = prettyFactory({ colorize: process.stdout.isTTY, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service' });
/** A pino line made readable; anything else as it came. */
function readable(line) {
  if (!line.startsWith('{')) return `${line}\n`;
  try {
    return pretty(JSON.parse(line));
  } catch {
    return `${line}\n`;
  }
}

const root = path.join(__dirname, '..');
for (const [name, local] of [
  ['DATABASE_URL', 'postgresql://postgres@127.0.0.1:5432/herald'],
  ['REDIS_URL', 'redis://127.0.0.1:6379'],
]) {
  if (process.env[name]) continue;
  process.env[name] = local;
  console.log(`[dev] ${name} is not set: using ${local}`);
}
const migrated = spawnSync(process.execPath, [path.join(root, 'packages/db/dist/migrate-cli.js')], { stdio: 'inherit', env: process.env });
if (migrated.status !== 0) process.exit(migrated.status ?? 1);

const procs = [
  ['api', [], 'apps/api/dist/main.js'],
  // As `pnpm start:worker` runs it (docs/operations.md#worker-memory).
  ['worker', ['--max-old-space-size=96'], 'apps/worker/dist/main.js'],
].map(([name, flags, entry]) => {
  const child = spawn(process.execPath, [...flags, path.join(root, entry)], { stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
  for (const stream of [child.stdout, child.stderr]) {
    let buf = '';
    stream.on('data', (chunk) => {
      buf += chunk;
      const lines = buf.split('\n');
      buf = lines.pop();
      for (const line of lines) process.stdout.write(`[${name}] ${readable(line)}`);
    });
  }
  child.on('exit', (code) => {
    console.log(`[${name}] exited with ${code}`);
    shutdown(code ?? 1);
  });
  return child;
});

let stopping = false;
function shutdown(code) {
  if (stopping) return;
  stopping = true;
  for (const p of procs) if (p.exitCode === null) p.kill('SIGTERM');
  setTimeout(() => process.exit(code), 30_000).unref();
  Promise.all(procs.map((p) => (p.exitCode !== null ? null : new Promise((r) => p.on('exit', r))))).then(() => process.exit(code));
}
process.on('SIGINT', () => shutdown(0));
process.on('SIGTERM', () => shutdown(0));
