import type Redis from 'ioredis';
import { createRedisConnection, type RedisTarget } from '@herald/project-state';

/**
 * A Redis connection for request paths: commands fail at once while Redis is unreachable (no
 * offline queue) and never wait more than 3 s, so the API answers 503 instead of hanging. With
 * `autoPipelining`, the commands of concurrent requests issued in one event-loop turn leave in one
 * write (the request path's version reads and rate-limit counters).
 */
export function createRedis(target: RedisTarget, name: string, { autoPipelining = false } = {}): Redis {
  return createRedisConnection(target, {
    connectionName: name,
    enableAutoPipelining: autoPipelining,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 3000,
    commandTimeout: 3000,
    // disconnect() gives the socket this long to close before destroying it, on a timer that only the
    // socket's closing clears: on a connection that is down already, the timer runs out in full and
    // holds the process that long (ioredis's default is 2 s).
    disconnectTimeout: 100,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
}

/** Resolves when the connection is ready or after `timeoutMs`, whichever is first. */
export function waitForRedis(redis: Redis, timeoutMs: number): Promise<boolean> {
  if (redis.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      redis.off('ready', onReady);
      resolve(false);
    }, timeoutMs).unref();
    const onReady = () => {
      clearTimeout(timer);
      resolve(true);
    };
    redis.once('ready', onReady);
  });
}
