import Redis, { Cluster, type RedisOptions } from 'ioredis';

/** Where Herald's Redis is: one server (`redisUrl`), or a Redis Cluster's seed nodes. */
export interface RedisTarget {
  redisUrl: string;
  redisClusterNodes?: { host: string; port: number }[];
}

/**
 * A connection to Herald's Redis, the same for the API and the worker: an ioredis `Cluster` when
 * REDIS_CLUSTER_NODES is set (the options apply to each node's connection), else one `Redis`.
 *
 * A cluster is typed as `Redis`: Herald uses only what both answer alike — single-key commands, Lua
 * scripts over one key, pipelines whose keys share the prefix's hash tag (one slot), and BullMQ,
 * which takes either.
 */
export function createRedisConnection(target: RedisTarget, options: RedisOptions): Redis {
  if (!target.redisClusterNodes) return new Redis(target.redisUrl, options);
  const { enableAutoPipelining, enableOfflineQueue, maxRetriesPerRequest, retryStrategy, ...redisOptions } = options;
  const cluster = new Cluster(target.redisClusterNodes, {
    redisOptions: { ...redisOptions, maxRetriesPerRequest },
    enableAutoPipelining,
    enableOfflineQueue,
    clusterRetryStrategy: retryStrategy,
    // A failover moves slots: follow MOVED / TRYAGAIN rather than failing the command.
    retryDelayOnFailover: 200,
    retryDelayOnTryAgain: 200,
    retryDelayOnClusterDown: 200,
  });
  return cluster as unknown as Redis;
}
