import { randomBytes } from 'node:crypto';
import { ensureDatabase, migrate } from '../packages/db/src/migrate';
import { startRedisCluster, type PrivateRedisCluster } from './redis-cluster';

/** REDIS_URL of a `HERALD_TEST_REDIS=cluster` run: port 1 on loopback, where nothing listens. */
const UNREACHABLE_REDIS_URL = 'redis://127.0.0.1:1';

/** The cluster of a `HERALD_TEST_REDIS=cluster` run, for the teardown (same process). */
export const shared: { cluster?: PrivateRedisCluster } = {};

/**
 * Every test run gets its own database and its own Redis key prefix, so runs (and developers on one
 * machine) never see each other's data. DATABASE_URL/REDIS_URL name the servers; the database in
 * DATABASE_URL is replaced by a fresh one and dropped at the end (test/global-teardown.ts).
 */
export default async function globalSetup() {
  const base = new URL(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres');
  const runId = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  base.pathname = `/herald_test_${runId}`;
  const databaseUrl = base.toString();
  await ensureDatabase(databaseUrl);
  await migrate(databaseUrl);
  process.env.DATABASE_URL = databaseUrl;
  process.env.REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  process.env.QUEUE_PREFIX = `herald-test-${runId}`;
  process.env.HERALD_TEST_RUN_ID = runId;
  // `pnpm test:cluster`: every API and worker of the run (in-process or spawned: testEnv passes the
  // environment on) uses a private 3+3 Redis Cluster instead of REDIS_URL.
  if (process.env.HERALD_TEST_REDIS === 'cluster') {
    shared.cluster = await startRedisCluster();
    process.env.REDIS_CLUSTER_NODES = shared.cluster.nodes;
    // Nothing of the run may reach the single server by mistake: whatever still uses REDIS_URL without
    // being given a Redis of its own fails instead of passing on the wrong Redis.
    process.env.REDIS_URL = UNREACHABLE_REDIS_URL;
  }
}
