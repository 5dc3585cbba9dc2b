import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Redis from 'ioredis';
import { Client } from 'pg';
import { waitUntil } from './wait';

/**
 * PRIVATE Redis and PostgreSQL servers for tests that stop and restart their dependencies. They
 * listen on free loopback ports, keep their data in a temp dir, and are never the shared servers
 * of the test run. Every server started here is also killed when the test process exits, so a
 * failing or interrupted test leaves nothing running.
 */

const cleanups = new Set<() => void>();
const runCleanups = () => {
  for (const cleanup of cleanups) {
    try {
      cleanup();
    } catch {
      /* best effort at exit */
    }
  }
};

let hooked = false;

/** Kills a server when the process exits, unless it was closed by then; the hook is set with the first server. */
function killAtExit(kill: () => void) {
  if (!hooked) process.once('exit', runCleanups);
  hooked = true;
  cleanups.add(kill);
}

/** Runs `cleanup` (synchronous: kill a server) when the test process exits; returns what forgets it again. */
export function atExit(cleanup: () => void): () => void {
  cleanups.add(cleanup);
  return () => void cleanups.delete(cleanup);
}

/** A free TCP port on 127.0.0.1 (asked from the kernel, then released). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Ends a client's connection, unless it has ended already: ioredis's disconnect() arms a timer that
 * only the socket's closing clears, so on a socket closed before (a refused probe, a SHUTDOWN) it
 * would hold the test process for 2 s.
 */
const disconnect = (client: Redis) => {
  if (client.status !== 'end') client.disconnect();
};

/** Resolves once `child` has exited (at once if it has). */
export const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise<void>((r) => child.once('exit', () => r()));

// ---------------------------------------------------------------------------------------------
// Redis

export interface PrivateRedis {
  port: number;
  url: string;
  /** Stops the server. `save: true` writes a snapshot first (a Redis with persistence, restarted); otherwise its data is gone. */
  stop(options?: { save?: boolean }): Promise<void>;
  /** Starts it again on the same port (loading the snapshot of a `stop({ save: true })`). */
  start(): Promise<void>;
  /** Stops it for good and removes its directory. */
  close(): Promise<void>;
}

export async function startRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'herald-redis-'));
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  const output: string[] = [];

  const isRunning = () => child !== undefined && child.exitCode === null && child.signalCode === null;
  const start = async () => {
    if (isRunning()) return;
    // No save points and no AOF: only an explicit SHUTDOWN SAVE persists anything.
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--dbfilename', 'dump.rdb', '--maxmemory-policy', 'noeviction'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (c: Buffer) => output.push(c.toString()));
    child.stderr!.on('data', (c: Buffer) => output.push(c.toString()));
    const started = child;
    await waitUntil(
      async () => {
        if (started.exitCode !== null) throw new Error(`redis-server exited: ${output.join('')}`);
        const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
        probe.on('error', () => undefined);
        try {
          await probe.connect();
          return (await probe.ping()) === 'PONG';
        } finally {
          disconnect(probe);
        }
      },
      10_000,
      `redis-server on port ${port}\n${output.join('')}`,
    );
  };

  const stop = async ({ save = false }: { save?: boolean } = {}) => {
    const running = child;
    if (!running || !isRunning()) return;
    if (save) {
      const admin = new Redis(url, { maxRetriesPerRequest: 0, retryStrategy: () => null });
      admin.on('error', () => undefined);
      // SHUTDOWN closes the connection instead of answering.
      await admin.call('SHUTDOWN', 'SAVE').catch(() => undefined);
      disconnect(admin);
    } else {
      running.kill('SIGKILL');
    }
    await exited(running);
  };

  const kill = () => {
    if (isRunning()) child!.kill('SIGKILL');
  };
  killAtExit(kill);
  await start();

  return {
    port,
    url,
    start,
    stop,
    async close() {
      await stop();
      cleanups.delete(kill);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL

/** The newest installed PostgreSQL's bin directory (Debian layout), or the one pg_config names. */
function postgresBinDir(): string {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => existsSync(path.join(root, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions.length) return path.join(root, versions[0], 'bin');
  }
  const pgConfig = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  if (pgConfig.status === 0 && existsSync(path.join(pgConfig.stdout.trim(), 'initdb'))) return pgConfig.stdout.trim();
  throw new Error('PostgreSQL server binaries (initdb, pg_ctl) not found: install the postgresql package');
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

/**
 * PostgreSQL refuses to run as root: as root, the server runs as the `postgres` user (which the
 * Debian package creates), and owns its data directory.
 */
function asServerUser(command: string, args: string[]): [string, string[]] {
  if (!isRoot()) return [command, args];
  return ['runuser', ['-u', 'postgres', '--', command, ...args]];
}

function run(command: string, args: string[], timeoutMs = 60_000) {
  const [cmd, argv] = asServerUser(command, args);
  const result = spawnSync(cmd, argv, { encoding: 'utf8', timeout: timeoutMs });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed (${result.status ?? result.signal}): ${result.error?.message ?? ''}\n${result.stdout}\n${result.stderr}`);
  }
  return result.stdout;
}

export interface PrivatePostgres {
  port: number;
  /** Connection URL of a database on this server (default `postgres`). */
  url(database?: string): string;
  /** `fast`: clean shutdown (connections are terminated); `immediate`: like a crash. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function startPostgres(): Promise<PrivatePostgres> {
  const bin = postgresBinDir();
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'herald-pg-'));
  const data = path.join(dir, 'data');
  if (isRoot()) {
    const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
    chownSync(dir, id('-u'), id('-g'));
  }
  run(path.join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-locale', '--no-sync']);
  const url = (database = 'postgres') => `postgresql://postgres@127.0.0.1:${port}/${database}`;
  let running = false;

  const pgCtl = (args: string[]) => run(path.join(bin, 'pg_ctl'), ['-D', data, ...args]);
  const start = async () => {
    if (running) return;
    // Durability is irrelevant for a throw-away cluster; the socket lives in the temp dir, not /var/run.
    pgCtl(['-w', '-t', '30', '-l', path.join(dir, 'server.log'), '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=200`, 'start']);
    running = true;
    await waitUntil(
      async () => {
        const client = new Client({ connectionString: url(), connectionTimeoutMillis: 1000 });
        try {
          await client.connect();
          await client.query('SELECT 1');
          return true;
        } finally {
          await client.end().catch(() => undefined);
        }
      },
      20_000,
      `postgres on port ${port}`,
    );
  };
  const stop = async (mode: 'fast' | 'immediate' = 'fast') => {
    if (!running) return;
    pgCtl(['-w', '-t', '30', '-m', mode, 'stop']);
    running = false;
  };
  const kill = () => {
    if (running) spawnSync(...asServerUser(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', 'stop']), { timeout: 10_000 });
  };
  killAtExit(kill);
  try {
    await start();
  } catch (err) {
    kill();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }

  return {
    port,
    url,
    start,
    stop,
    async close() {
      await stop('immediate').catch(() => kill());
      cleanups.delete(kill);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
