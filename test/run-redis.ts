import IORedis, { Cluster, type RedisOptions } from 'ioredis';
import type Redis from 'ioredis';
import { loadWorkerConfig } from '@herald/config';
import { createRedisConnection, type RedisTarget } from '@herald/project-state';
import { testEnv } from './harness';

/**
 * The test run's Redis as Herald's processes reach it: the private 3+3 cluster of a
 * `HERALD_TEST_REDIS=cluster` run (REDIS_CLUSTER_NODES), else the one server at REDIS_URL. Tests that
 * talk to Redis themselves use these, so that they look where the API and the worker write.
 */
export function runRedisTarget(): RedisTarget {
  const { redisUrl, redisClusterNodes } = loadWorkerConfig(testEnv());
  return { redisUrl, redisClusterNodes };
}

/** A connection to the run's Redis (an ioredis `Cluster` on a cluster run, typed as `Redis` as Herald does). */
export function runRedis(options: RedisOptions = {}): Redis {
  return createRedisConnection(runRedisTarget(), options);
}

/** Whether this run's Redis is a cluster (`pnpm test:cluster`). */
export const onRedisCluster = () => Boolean(process.env.REDIS_CLUSTER_NODES);

/**
 * A key prefix of the run's own, under `label`, as Herald's configuration makes `QUEUE_PREFIX`: a hash
 * tag on a cluster, so that every key under it is in one slot.
 */
export function runKeyPrefix(label: string): string {
  const prefix = `${process.env.QUEUE_PREFIX}-${label}`;
  return onRedisCluster() ? `{${prefix}}` : prefix;
}

/**
 * A plain connection to the server that holds `key` — on a cluster, the master of its slot — for
 * what only one server answers (MONITOR).
 */
export async function runRedisServerOf(key: string): Promise<Redis> {
  const target = runRedisTarget();
  if (!target.redisClusterNodes) return new IORedis(target.redisUrl);
  const cluster = new Cluster(target.redisClusterNodes, { lazyConnect: true });
  try {
    await cluster.connect();
    const slot = Number(await cluster.call('CLUSTER', 'KEYSLOT', key));
    const [master] = cluster.slots[slot];
    const [host, port] = [master.slice(0, master.lastIndexOf(':')), Number(master.slice(master.lastIndexOf(':') + 1))];
    return new IORedis({ host, port });
  } finally {
    cluster.disconnect();
  }
}
