import Redis from 'ioredis';
import { startRedisCluster, type PrivateRedisCluster } from './redis-cluster';

/**
 * The local Redis Cluster the cluster suites run against: three masters with a replica each, and a
 * master's crash survived by its replica's promotion, without losing replicated writes.
 */

let cluster: PrivateRedisCluster;

beforeAll(async () => {
  cluster = await startRedisCluster();
}, 60_000);
afterAll(() => cluster?.close());

it('runs three masters with a replica each, serving every slot', async () => {
  const addresses = cluster.nodes.split(',');
  expect(addresses).toHaveLength(6);
  for (const a of addresses) expect(a).toMatch(/^127\.0\.0\.1:\d+$/);
  const client = cluster.client();
  const shards = (await client.call('CLUSTER', 'SHARDS')) as [string, [number, number, ...number[]], string, Record<string, unknown>[]][];
  expect(shards).toHaveLength(3);
  const slots = shards.flatMap(([, ranges]) => ranges).reduce<number>((sum, n, i, all) => (i % 2 ? sum + n - all[i - 1] + 1 : sum), 0);
  expect(slots).toBe(16384);
  for (const [, , , shardNodes] of shards) expect(shardNodes).toHaveLength(2);
  await client.quit();
});

it('a master killed: its replica is promoted and serves every key the master had replicated, and the old master rejoins as a replica', async () => {
  const client = cluster.client();
  const keys = Array.from({ length: 300 }, (_, i) => `cluster-test:${i}`);
  await Promise.all(keys.map((k, i) => client.set(k, `value-${i}`)));

  // Keys of every master were written; then each master's writing connection waits until its replica
  // has every write (replication is asynchronous: without WAIT a crash may lose the last ones).
  const masters = client.nodes('master');
  expect(masters).toHaveLength(3);
  for (const master of masters) expect(Number(await master.dbsize())).toBeGreaterThan(50);
  for (const master of masters) expect(await master.call('WAIT', '1', '5000')).toBe(1);

  const victim = keys[0];
  const slot = Number(await client.call('CLUSTER', 'KEYSLOT', victim));
  const { killed, promoted } = await cluster.failover(victim);
  expect(promoted).not.toBe(killed);
  expect(cluster.nodes.split(',')).toEqual(expect.arrayContaining([killed, promoted]));

  // The promoted replica itself answers for the slot, with the value.
  const direct = new Redis({ host: '127.0.0.1', port: Number(promoted.split(':')[1]), maxRetriesPerRequest: 1 });
  expect(await direct.call('ROLE').then((role) => (role as string[])[0])).toBe('master');
  const owned = (await direct.call('CLUSTER', 'COUNTKEYSINSLOT', String(slot))) as number;
  expect(owned).toBeGreaterThan(0);
  expect(await direct.get(victim)).toBe('value-0');
  direct.disconnect();

  // The client that wrote follows the new topology and reads every key back.
  const values = await Promise.all(keys.map((k) => client.get(k).catch((err: Error) => err.message)));
  expect(values).toEqual(keys.map((_, i) => `value-${i}`));

  await cluster.restart(killed);
  const rejoined = new Redis({ host: '127.0.0.1', port: Number(killed.split(':')[1]), maxRetriesPerRequest: 1 });
  const role = (await rejoined.call('ROLE')) as [string, string, number];
  expect(role[0]).toBe('slave');
  expect(`${role[1]}:${role[2]}`).toBe(promoted);
  rejoined.disconnect();
  await client.quit();
}, 90_000);
