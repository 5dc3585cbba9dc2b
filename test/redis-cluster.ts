import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Redis, { Cluster, type ClusterOptions } from 'ioredis';
import { atExit, exited, freePort } from './services';
import { waitUntil } from './wait';

/**
 * A PRIVATE Redis Cluster for tests: three masters with a replica each, from Debian's `redis-server`
 * (`--cluster-enabled yes`), joined by `redis-cli --cluster create`. Each node listens on a free
 * loopback port (and a free one for its cluster bus), keeps its data and `nodes.conf` in a temp dir, and
 * is killed when the test process exits, as the servers of services.ts are.
 *
 * `failover` kills a master as a crash would and waits for the cluster to promote its replica: with
 * asynchronous replication, writes the replica had not received are lost, as in production (a test
 * that must not lose them runs `WAIT` on the writing connection first).
 */

const HOST = '127.0.0.1';
const SLOTS = 16384;

export interface ClusterStartOptions {
  /** `cluster-node-timeout`: how long a silent node takes to be declared failed (a failover takes about this plus a second). */
  nodeTimeoutMs?: number;
}

export interface PrivateRedisCluster {
  /** Every node as `127.0.0.1:port`, comma-separated (masters first, as created). */
  readonly nodes: string;
  /** A cluster client on every node; those still open are closed by `close()`. */
  client(options?: ClusterOptions): Cluster;
  /**
   * Kills (SIGKILL) the master serving a slot, or a key's slot, and waits until its replica is master of
   * that slot in the view of every live node and each says `cluster_state:ok`.
   */
  failover(target: number | string): Promise<{ killed: string; promoted: string }>;
  /** Starts a killed node again; it rejoins as a replica (of the master that replaced it). Waits for its link to be up. */
  restart(address: string): Promise<void>;
  /** Kills every node and removes their data. */
  close(): Promise<void>;
}

interface NodeInfo {
  id: string;
  address: string;
  flags: string[];
  masterId: string;
  slots: [number, number][];
}

/** `CLUSTER NODES`, parsed: `<id> <ip:port@cport[,hostname]> <flags> <master> <ping> <pong> <epoch> <link> <slot>…`. */
function parseClusterNodes(text: string): NodeInfo[] {
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const [id, addr, flags, masterId, , , , , ...slots] = line.split(' ');
      return {
        id,
        address: addr.split('@')[0],
        flags: flags.split(','),
        masterId,
        // Slots being migrated (`[…->-…]`) are not owned yet.
        slots: slots.filter((s) => !s.startsWith('[')).map((s) => s.split('-').map(Number) as [number] | [number, number]).map(([a, b = a]) => [a, b] as [number, number]),
      };
    });
}

const portOf = (address: string) => Number(address.slice(address.lastIndexOf(':') + 1));
const owns = (n: NodeInfo, slot: number) => n.slots.some(([a, b]) => slot >= a && slot <= b);
const isFailed = (n: NodeInfo) => n.flags.includes('fail') || n.flags.includes('fail?');

/** One command on one node, over a connection of its own that never retries (the node may be down). */
async function ask(port: number, ...args: (string | number)[]): Promise<string> {
  const redis = new Redis({ host: HOST, port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 2000 });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return String(await redis.call(String(args[0]), ...args.slice(1).map(String)));
  } finally {
    redis.disconnect();
  }
}

const infoField = (info: string, field: string) => new RegExp(`^${field}:(.*)$`, 'm').exec(info)?.[1]?.trim();

export async function startRedisCluster({ nodeTimeoutMs = 2000 }: ClusterStartOptions = {}): Promise<PrivateRedisCluster> {
  const dir = mkdtempSync(path.join(tmpdir(), 'herald-redis-cluster-'));
  const ports: number[] = [];
  const busPorts: number[] = [];
  /** A loopback port free now and not yet given to a node of this cluster. */
  const unusedPort = async () => {
    for (;;) {
      const port = await freePort();
      if (!ports.includes(port) && !busPorts.includes(port)) return port;
    }
  };
  for (let i = 0; i < 6; i++) {
    ports.push(await unusedPort());
    busPorts.push(await unusedPort());
  }
  /** The nodes' addresses, fixed once they all listen (a node may have moved to other ports before). */
  let addresses: string[] = [];
  const children = new Map<number, ChildProcess>();
  const output = new Map<number, string[]>();
  const clients = new Set<Cluster>();

  const isRunning = (port: number) => {
    const child = children.get(port);
    return child !== undefined && child.exitCode === null && child.signalCode === null;
  };
  const live = () => ports.filter(isRunning);
  const logOf = (port: number) => (output.get(port) ?? []).join('').slice(-2000);

  const startNode = async (i: number) => {
    const port = ports[i];
    const nodeDir = path.join(dir, String(port));
    mkdirSync(nodeDir, { recursive: true });
    // No snapshots and no AOF: a node's data lives in memory (and in its replica). Diskless replication
    // without the default 5 s delay, so that a replica syncs at once. A replica may always be promoted,
    // however long it was cut off (validity factor 0): tests kill masters on purpose.
    const args = [
      '--port', String(port), '--bind', HOST, '--dir', nodeDir,
      '--cluster-enabled', 'yes', '--cluster-port', String(busPorts[i]), '--cluster-config-file', 'nodes.conf',
      '--cluster-node-timeout', String(nodeTimeoutMs), '--cluster-replica-validity-factor', '0',
      '--save', '', '--appendonly', 'no', '--repl-diskless-sync', 'yes', '--repl-diskless-sync-delay', '0',
      '--maxmemory-policy', 'noeviction',
    ];
    const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const lines: string[] = [];
    output.set(port, lines);
    child.stdout!.on('data', (c: Buffer) => lines.push(c.toString()));
    child.stderr!.on('data', (c: Buffer) => lines.push(c.toString()));
    children.set(port, child);
    await waitUntil(
      async () => {
        if (child.exitCode !== null) throw new Error(`redis-server exited: ${logOf(port)}`);
        return (await ask(port, 'PING')) === 'PONG';
      },
      10_000,
      `redis-server (cluster node) on port ${port}\n${logOf(port)}`,
    );
  };

  /**
   * Starts a node of the new cluster. Its ports were only free when picked, in the range the system
   * also gives to outgoing connections: if another process took one meanwhile, the node starts again
   * on fresh ones (nothing knows its address before the cluster is created).
   */
  const startNewNode = async (i: number) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await startNode(i);
      } catch (err) {
        if (attempt === 3 || !logOf(ports[i]).includes('Address already in use')) throw err;
        ports[i] = await unusedPort();
        busPorts[i] = await unusedPort();
      }
    }
  };

  const killAll = () => {
    for (const port of live()) children.get(port)!.kill('SIGKILL');
  };
  const forget = atExit(killAll);

  /** The cluster as `port` sees it. */
  const view = async (port: number) => parseClusterNodes(await ask(port, 'CLUSTER', 'NODES'));

  /**
   * Every live node says `cluster_state:ok` and knows every slot, and all of them see the same live
   * topology: every live node, none failed, each master with slots and each replica of one of them.
   */
  const healthy = async () => {
    const up = live().map((p) => `${HOST}:${p}`);
    let seen: string | undefined;
    for (const port of live()) {
      const info = await ask(port, 'CLUSTER', 'INFO');
      if (infoField(info, 'cluster_state') !== 'ok' || infoField(info, 'cluster_slots_ok') !== String(SLOTS)) return false;
      const nodes = (await view(port)).filter((n) => up.includes(n.address));
      if (nodes.length !== up.length || nodes.some(isFailed)) return false;
      const masters = nodes.filter((n) => n.flags.includes('master'));
      if (masters.some((m) => !m.slots.length)) return false;
      if (nodes.some((n) => n.flags.includes('slave') && !masters.some((m) => m.id === n.masterId))) return false;
      const topology = nodes.map((n) => `${n.id}:${n.masterId}:${JSON.stringify(n.slots)}`).sort().join('|');
      if (seen !== undefined && topology !== seen) return false;
      seen = topology;
    }
    return true;
  };

  /** Every replica among the live nodes has its link to its master up. */
  const replicasLinked = async () => {
    for (const port of live()) {
      const info = await ask(port, 'INFO', 'replication');
      if (infoField(info, 'role') === 'slave' && infoField(info, 'master_link_status') !== 'up') return false;
    }
    return true;
  };

  const closeAll = async () => {
    for (const c of clients) c.disconnect();
    clients.clear();
    const running = live().map((p) => children.get(p)!);
    killAll();
    await Promise.all(running.map(exited));
    forget();
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    await Promise.all(ports.map((_, i) => startNewNode(i)));
    addresses = ports.map((p) => `${HOST}:${p}`);
    await promisify(execFile)('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-replicas', '1', '--cluster-yes'], { timeout: 60_000 });
    await waitUntil(
      async () => {
        if (!(await healthy()) || !(await replicasLinked())) return false;
        return (await view(ports[0])).filter((n) => n.flags.includes('master')).length === 3;
      },
      30_000,
      'the Redis Cluster to be formed (cluster_state:ok, 3 masters, 3 linked replicas)',
      100,
    );
  } catch (err) {
    await closeAll();
    throw err;
  }

  return {
    nodes: addresses.join(','),

    client(options) {
      const client = new Cluster(
        ports.map((port) => ({ host: HOST, port })),
        options,
      );
      clients.add(client);
      client.once('end', () => clients.delete(client));
      return client;
    },

    async failover(target) {
      const [port] = live();
      const slot = typeof target === 'number' ? target : Number(await ask(port, 'CLUSTER', 'KEYSLOT', target));
      const nodes = await view(port);
      const master = nodes.find((n) => n.flags.includes('master') && !isFailed(n) && owns(n, slot));
      if (!master) throw new Error(`no live master serves slot ${slot}`);
      const replicas = nodes.filter((n) => n.masterId === master.id && !isFailed(n) && isRunning(portOf(n.address)));
      if (!replicas.length) throw new Error(`the master of slot ${slot} (${master.address}) has no live replica to promote`);
      const victim = children.get(portOf(master.address))!;
      victim.kill('SIGKILL');
      await exited(victim);
      let promoted = '';
      await waitUntil(
        async () => {
          for (const p of live()) {
            const owner = (await view(p)).find((n) => n.flags.includes('master') && !isFailed(n) && owns(n, slot));
            if (!owner || !replicas.some((r) => r.id === owner.id)) return false;
            promoted = owner.address;
          }
          return healthy();
        },
        Math.max(30_000, nodeTimeoutMs * 10),
        `a replica of ${master.address} to be promoted for slot ${slot}`,
        100,
      );
      return { killed: master.address, promoted };
    },

    async restart(address) {
      const i = addresses.indexOf(address);
      if (i < 0) throw new Error(`${address} is not a node of this cluster`);
      if (isRunning(ports[i])) return;
      await startNode(i);
      await waitUntil(async () => (await healthy()) && (await replicasLinked()) && infoField(await ask(ports[i], 'INFO', 'replication'), 'role') === 'slave', Math.max(30_000, nodeTimeoutMs * 10), `${address} to rejoin as a replica`, 100);
    },

    close: closeAll,
  };
}
