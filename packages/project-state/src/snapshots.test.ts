import Redis from 'ioredis';
import pino from 'pino';
import { startRedis, waitUntil, type PrivateRedis } from '@herald/testing';
import { Lazy, LoadedByKey } from './memo';
import { ProjectSnapshots } from './snapshots';
import { projectVersionKey, ProjectVersions } from './versions';

/**
 * The versioned cache against a Redis of its own, which the tests stop and start. Snapshots here
 * are plain objects that count what they were made for; the API's and the worker's own snapshots
 * are tested by their apps (project-cache.test.ts, project-context.test.ts).
 */
let redis: PrivateRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis.close());

const logger = pino({ level: 'silent' });
/** A connection as the API makes them: no offline queue, so commands fail at once while Redis is away. */
const connect = (name: string) => {
  const client = new Redis(redis.url, { connectionName: name, enableOfflineQueue: false, maxRetriesPerRequest: 1, retryStrategy: (attempt) => Math.min(attempt * 200, 2000) });
  client.on('error', () => undefined);
  return client;
};
const snapshotsOn = (client: Redis, prefix: string) =>
  new ProjectSnapshots({ versions: new ProjectVersions(client, prefix, logger), create: (projectId, version) => ({ projectId, version }) });

describe('ProjectSnapshots', () => {
  it('keeps a snapshot while the version is unchanged, and makes a new one when it changes', async () => {
    const client = connect('versions');
    try {
      await waitUntil(() => client.status === 'ready', 5000, 'connection');
      const snapshots = snapshotsOn(client, 'test-versions');
      const projectId = '33333333-3333-4333-8333-333333333333';
      const first = await snapshots.get(projectId);
      expect(await snapshots.get(projectId)).toBe(first);
      // Another process changes the project.
      await new ProjectVersions(client, 'test-versions').publish([projectId]);
      const second = await snapshots.get(projectId);
      expect(second).not.toBe(first);
      expect(second.version).toBe(await client.get(projectVersionKey('test-versions', projectId)));
      // A change through this one is seen at once, without waiting for Redis.
      await snapshots.invalidate([projectId]);
      expect(await snapshots.get(projectId)).not.toBe(second);
    } finally {
      client.disconnect();
    }
  });

  it('a version that could not be written is written when Redis is back, and snapshots are dropped on reconnect', async () => {
    const writer = connect('writer');
    const reader = connect('reader');
    const writerCache = snapshotsOn(writer, 'test');
    const readerCache = snapshotsOn(reader, 'test');
    try {
      await waitUntil(() => writer.status === 'ready' && reader.status === 'ready', 5000, 'connections');
      const projectId = '11111111-1111-4111-8111-111111111111';
      const before = await readerCache.get(projectId);
      expect(await readerCache.get(projectId)).toBe(before);

      await redis.stop();
      // Without Redis nothing is trusted: a fresh snapshot each time, at no version.
      expect(await readerCache.get(projectId)).toEqual({ projectId, version: null });
      await writerCache.invalidate([projectId]); // fails: kept for later, never thrown
      await redis.start();
      await waitUntil(async () => writer.status === 'ready' && (await writer.get(projectVersionKey('test', projectId)).catch(() => null)) !== null, 10_000, 'the retried version');
      await waitUntil(() => reader.status === 'ready', 5000, 'reader reconnect');
      const after = await readerCache.get(projectId);
      expect(after).not.toBe(before);
      expect(after.version).toEqual(expect.any(String));
    } finally {
      writer.disconnect();
      reader.disconnect();
    }
  });
});

describe('what a snapshot loads', () => {
  it('concurrent callers share one load; a failed load is not kept', async () => {
    let loads = 0;
    let fail = true;
    const later = <T>(value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), 20));
    const lazy = new Lazy(async () => {
      loads++;
      if (fail) {
        fail = false;
        throw new Error('db down');
      }
      return later('ready');
    });
    await expect(lazy.get()).rejects.toThrow('db down');
    expect(await Promise.all([lazy.get(), lazy.get()])).toEqual(['ready', 'ready']);
    expect(loads).toBe(2);

    const byKey = new LoadedByKey<string, string>(2);
    const calls: string[] = [];
    const load = (key: string) => (calls.push(key), later(key.toUpperCase()));
    expect(await Promise.all([byKey.get('a', load), byKey.get('a', load), byKey.get('b', load)])).toEqual(['A', 'A', 'B']);
    expect(calls).toEqual(['a', 'b']);
    // Full: it starts over rather than growing.
    await byKey.get('c', load);
    await byKey.get('a', load);
    expect(calls).toEqual(['a', 'b', 'c', 'a']);
  });
});
