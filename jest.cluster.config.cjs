/**
 * `pnpm test:cluster`: the suites whose behaviour lives in Redis, run a second time with every API and
 * worker of the run on a private 3+3 Redis Cluster (HERALD_TEST_REDIS=cluster, test/global-setup.ts).
 * A suite belongs here when what it checks goes through Redis: the queues (sends, schedules, sweepers,
 * webhooks, broadcasts), the rate limits, the project cache's versions, the FCM rate buckets, the
 * webhook slots, the lastUsedAt gate. Not here: suites that stop a Redis of their own (outage tests),
 * and those that only need an API to answer (what Redis does for them is covered by the suites here).
 */
const { existsSync } = require('node:fs');
const path = require('node:path');
const base = require('./jest.config.js');

const REDIS_SUITES = [
  // API: limits, the project cache of two instances, sessions, the lastUsedAt gate, idempotent and scheduled sends
  'apps/api/src/http/rate-limit.test.ts',
  'apps/api/src/modules/auth/auth.limits.test.ts',
  'apps/api/src/modules/auth/auth.sessions.test.ts',
  'apps/api/src/modules/api-keys/api-keys.test.ts',
  'apps/api/src/modules/api-keys/api-keys.limits.test.ts',
  'apps/api/src/modules/invites/invites.limits.test.ts',
  'apps/api/src/project-cache/project-cache.test.ts',
  'apps/api/src/modules/notifications/notifications.test.ts',
  'apps/api/src/modules/notifications/notifications.scheduled.test.ts',
  'apps/api/src/modules/notifications/notifications.service.test.ts',
  'apps/api/src/modules/engagement/engagement.e2e.test.ts',
  // Worker: delivery, its rate buckets, schedules, broadcasts, sweepers, webhooks and their slots
  'apps/worker/src/delivery/delivery.e2e.test.ts',
  'apps/worker/src/delivery/crash.e2e.test.ts',
  'apps/worker/src/delivery/one-user.e2e.test.ts',
  'apps/worker/src/delivery/broadcast.e2e.test.ts',
  'apps/worker/src/delivery/local-time.e2e.test.ts',
  'apps/worker/src/delivery/rate.e2e.test.ts',
  'apps/worker/src/delivery/rate-limiter.test.ts',
  'apps/worker/src/maintenance/sweeper.e2e.test.ts',
  'apps/worker/src/maintenance/webhook-sweeper.e2e.test.ts',
  'apps/worker/src/maintenance/webhook-giveup.e2e.test.ts',
  'apps/worker/src/webhooks/webhooks.e2e.test.ts',
  'apps/worker/src/webhooks/webhooks-fairness.e2e.test.ts',
  'apps/worker/src/webhooks/project-slots.test.ts',
  'apps/worker/src/metrics.test.ts',
  // Several processes on one Redis
  'test/shutdown.e2e.test.ts',
  'test/scale-out.test.ts',
];

// A file renamed or moved would otherwise leave the cluster run silently, matching nothing.
const missing = REDIS_SUITES.filter((file) => !existsSync(path.join(__dirname, file)));
if (missing.length) throw new Error(`jest.cluster.config.cjs lists test files that do not exist: ${missing.join(', ')}`);

/** @type {import('jest').Config} */
module.exports = { ...base, testMatch: REDIS_SUITES.map((file) => `<rootDir>/${file}`) };
