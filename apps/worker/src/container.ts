import { Queue } from 'bullmq';
import type Redis from 'ioredis';
import pino, { type Logger } from 'pino';
import type { WorkerConfig } from '@herald/config';
import { NOTIFICATIONS_QUEUE, WEBHOOKS_QUEUE, createTemplateCompiler, heldDeliverJobFor, retryJobFor } from '@herald/core';
import { closeDb, createDb, loadProviderCredentials, sqlPool, WebhookEvents, type Db } from '@herald/db';
import { createMailer, type Mailer } from '@herald/mail';
import { createRedisConnection, ProjectReads } from '@herald/project-state';
import { ProviderPool } from '@herald/providers';
import { FanOut } from './delivery/fan-out';
import { RolloutMonitor } from './delivery/rollout';
import { DeliveryService, observers, type DeliveryObserver } from './delivery/delivery.service';
import { OutcomeWriter } from './delivery/outcome-writer';
import { ProjectContexts } from './delivery/project-context';
import { SendRateLimiter } from './delivery/rate-limiter';
import { DeliveryRepository } from './delivery/repository';
import { WORKER_PLANNER } from './delivery/sql';
import { LostWorkQueries } from './maintenance/lost-work';
import { Retention, type Purged } from './maintenance/retention';
import { Sweeper } from './maintenance/sweeper';
import { WebhookSweeper } from './maintenance/webhook-sweeper';
import { warmUpDelivery, type WarmUpResult } from './tuning/warm-up';
import { OutcomeEvents } from './webhooks/outcome-events';
import { ProjectSlots } from './webhooks/project-slots';
import { WebhookDispatcher, type WebhookObserver } from './webhooks/webhook.service';

export interface WorkerContainer {
  config: WorkerConfig;
  logger: Logger;
  db: Db;
  /** BullMQ's connection: commands wait while Redis is away instead of failing (workers recover by themselves). */
  connection: Redis;
  queue: Queue;
  repository: DeliveryRepository;
  delivery: DeliveryService;
  /** The webhooks queue (its own, so that a slow receiver never holds up push delivery). */
  webhookQueue: Queue;
  /** Emits outcome events (e.g. from delivery's final step). */
  webhookEvents: WebhookEvents;
  /** Notification outcomes and pruned tokens, as webhook events (the delivery path's hooks). */
  outcomeEvents: OutcomeEvents;
  /** Staged rollouts' stages: released, weighed, halted. */
  rollouts: RolloutMonitor;
  webhooks: WebhookDispatcher;
  mailer: Mailer;
  /** Repeatable jobs: lost delivery work, lost webhook work, retention. */
  maintenance: { sweeper: Sweeper; webhookSweeper: WebhookSweeper; retention: Retention };
  /**
   * Opens the database connections and prepares the queries that delivering a project's first
   * notification makes, so that it does not pay for them. Delivery runs on node-postgres alone;
   * Prisma's query engine (a third of a second to load, and tens of MiB) serves webhooks only, so it
   * is loaded here where a webhook endpoint exists, and otherwise not at all. Fails when the
   * database cannot be reached.
   */
  warmUp(): Promise<void>;
  /**
   * Warms the delivery code up (`WORKER_WARM_UP_MESSAGES` messages to a loopback stand-in for FCM)
   * until real work arrives or `stopping()` says so.
   */
  warmUpDelivery(stopping: () => boolean): Promise<WarmUpResult>;
  close(): Promise<void>;
}

/**
 * One-user notifications a worker sends at once, at most: several times what the provider's 100
 * streams hold, so that they never wait for work; more would only keep state alive longer (garbage
 * collection then costs more than the sends). Jobs may carry many notifications each.
 */
const MAX_NOTIFICATIONS_IN_FLIGHT = 512;
/** Devices a broadcast plans per page (one page job's deliveries), at most. */
const FAN_OUT_PAGE_SIZE = 1000;
/**
 * Recipients a worker delivers at once, at most (bounds its memory: a row and a message each): eight
 * broadcast pages. A page job waits for its claim and for the writes of each batch; with two pages at
 * once (the former bound, 2,000) those waits left the provider's streams idle. More is not better at
 * a million devices: with sixteen pages the worker spent 124 µs of CPU per delivery against 73 µs with
 * eight, and delivered 25 % slower; its heap is capped at 96 MB, and what is in flight lives long
 * enough to be promoted, so more of it means more full collections (docs/benchmarks.md).
 */
const MAX_RECIPIENTS_IN_FLIGHT = 8 * FAN_OUT_PAGE_SIZE;

/** Database connections of a worker: its delivery steps each run one statement at a time, a few at once; webhooks use their own share. */
const DELIVERY_POOL_SIZE = 8;

export interface WorkerOverrides {
  logger?: Logger;
  observe?: DeliveryObserver;
  observeWebhooks?: WebhookObserver;
  /** Hears the rows each retention purge deleted. */
  observeRetention?: (purged: Purged) => void;
  mailer?: Mailer;
}

export function createWorkerContainer(config: WorkerConfig, overrides: WorkerOverrides = {}): WorkerContainer {
  const logger = overrides.logger ?? pino({ level: config.logLevel, base: { service: 'herald-worker' } });
  // A worker waits for a busy database rather than failing a job whose messages were sent.
  const db = createDb(config.databaseUrl, { poolSize: DELIVERY_POOL_SIZE + Math.min(config.webhooks.concurrency, 8), connectTimeoutMs: 15_000, ...WORKER_PLANNER });
  // A claim lasts as long as a job's lock: a dead run's rows are free when its job is taken over.
  const repository = new DeliveryRepository(sqlPool(db), config.lockDurationMs);
  const connection = createRedisConnection(config, { maxRetriesPerRequest: null, connectionName: 'herald-worker' });
  connection.on('error', (err) => logger.warn({ err: { message: err.message } }, 'redis connection error'));
  const queue = new Queue(NOTIFICATIONS_QUEUE, { connection, prefix: config.queuePrefix });
  const webhookQueue = new Queue(WEBHOOKS_QUEUE, { connection, prefix: config.queuePrefix });
  const webhookEvents = new WebhookEvents(db, webhookQueue);
  // Delivery's observers: the metrics, and the webhook events of finished notifications and pruned tokens.
  const outcomeEvents = new OutcomeEvents(db, webhookEvents, logger.child({ component: 'webhooks' }));
  const observe = observers(overrides.observe, outcomeEvents.observer());
  const mailer = overrides.mailer ?? createMailer({ ...config.mail, logger });
  const webhooks = new WebhookDispatcher({
    db,
    queue: webhookQueue,
    logger: logger.child({ component: 'webhooks' }),
    mailer,
    keys: config.encryption,
    policy: { baseMs: config.webhooks.retryBaseMs, maxDelayMs: config.webhooks.retryMaxDelayMs, windowMs: config.webhooks.retryWindowMs },
    timeoutMs: config.webhooks.timeoutMs,
    allowPrivate: config.webhookAddresses.allowPrivate,
    disableAfterMs: config.webhooks.disableAfterMs,
    slots: new ProjectSlots(connection, config.queuePrefix, config.webhooks.projectConcurrency, config.webhooks.timeoutMs + 5_000),
    observe: overrides.observeWebhooks,
  });
  const clients = new ProviderPool({ emulatorHost: config.fcmEmulatorHost, logger: logger.child({ component: 'fcm' }) });
  const compiler = createTemplateCompiler({ cacheSize: 1000 });
  const reads = new ProjectReads(sqlPool(db));
  const contexts = new ProjectContexts({
    redis: connection,
    prefix: config.queuePrefix,
    reads,
    loadProviders: (projectId) =>
      loadProviderCredentials(db, config.encryption, projectId, (providerConfigId, err) =>
        logger.error({ providerConfigId, err: { message: err.message } }, 'provider credentials cannot be decrypted; skipping this provider'),
      ),
    compile: (source) => compiler.compile(source),
    prepare: (provider) => void clients.get(provider).prepare?.(),
  });
  const outcomes = new OutcomeWriter({
    record: (o) => repository.record(o),
    // Delayed work, never a sleep: each notification's rows come back as a retry job when the longest delay has passed.
    enqueueRetries: async (retries) => {
      await queue.addBulk(retries.map((r) => retryJobFor(r.notificationId, r.deliveryIds, r.delayMs)));
    },
    written: (written, finished) => {
      if (!observe) return;
      observe.outcomes?.(written);
      for (const o of written) if (o.kind === 'prune') observe.pruned?.({ projectId: o.projectId, notificationId: o.notificationId, deviceId: o.deviceId });
      for (const f of finished) observe.finished?.(f);
    },
  });
  const policy = { maxAttempts: config.deliveryMaxAttempts, baseDelayMs: config.retryBaseMs, maxDelayMs: 5 * 60_000 };
  const enqueueHeld = async (held: { notificationId: string; dueAt: number }[]) => {
    await queue.addBulk(held.map((h) => heldDeliverJobFor(h.notificationId, h.dueAt)));
  };
  const delivery = new DeliveryService({
    repository,
    contexts,
    outcomes,
    logger,
    client: (p) => clients.get(p),
    rateLimiter: new SendRateLimiter(connection, config.queuePrefix, config.fcmRatePerMinute, config.fcmRateBurst),
    policy,
    batchSize: config.batchSize,
    maxRecipientsInFlight: Math.max(config.batchSize, MAX_RECIPIENTS_IN_FLIGHT),
    maxNotificationsInFlight: MAX_NOTIFICATIONS_IN_FLIGHT,
    claimRenewMs: Math.max(250, Math.floor(config.lockDurationMs / 3)),
    enqueueHeld,
    observe,
    fanOut: new FanOut({
      pool: sqlPool(db),
      enqueue: async (job) => void (await queue.add(job.name, job.data, job.opts)),
      pageSize: Math.min(FAN_OUT_PAGE_SIZE, Math.max(config.batchSize, 4 * 500)),
      finished: (f) => observe.finished?.(f),
      enqueueHeld,
    }),
  });
  const rollouts = new RolloutMonitor({
    db,
    pool: sqlPool(db),
    events: webhookEvents,
    enqueue: async (job) => void (await queue.add(job.name, job.data, job.opts)),
    pageSize: Math.min(FAN_OUT_PAGE_SIZE, Math.max(config.batchSize, 4 * 500)),
    logger: logger.child({ component: 'rollout' }),
  });
  const maintenance = {
    sweeper: new Sweeper({ queries: new LostWorkQueries(sqlPool(db)), queue, logger, observe }),
    webhookSweeper: new WebhookSweeper({ db, queue: webhookQueue, events: webhookEvents, logger, retryWindowMs: config.webhooks.retryWindowMs }),
    retention: new Retention({ pool: sqlPool(db), queue, days: config.retentionDays, auditDays: config.auditRetentionDays, logger, observe: overrides.observeRetention }),
  };
  return {
    config,
    logger,
    db,
    connection,
    queue,
    repository,
    delivery,
    webhookQueue,
    webhookEvents,
    outcomeEvents,
    rollouts,
    webhooks,
    mailer,
    maintenance,
    async warmUp() {
      const nobody = '00000000-0000-0000-0000-000000000000';
      const [, , , webhooks] = await Promise.all([
        loadProviderCredentials(db, config.encryption, nobody),
        reads.pushConfigEnabled(nobody),
        repository.load([nobody]),
        sqlPool(db).query<{ any: boolean }>('SELECT EXISTS (SELECT 1 FROM "WebhookEndpoint" WHERE "enabled") AS "any"'),
        reads.settings(nobody),
      ]);
      if (webhooks.rows[0].any) await db.webhookEndpoint.findFirst({ select: { id: true } });
    },
    warmUpDelivery: (stopping) => warmUpDelivery({ messages: config.warmUpMessages, busy: () => stopping() || !delivery.idle, policy }),
    async close() {
      delivery.stop();
      await startedOrLate([queue, webhookQueue]);
      await queue.close();
      await webhookQueue.close();
      mailer.close();
      await clients.close();
      connection.disconnect();
      await closeDb(db);
    },
  };
}

/**
 * Waits (at most `ms`) for BullMQ queues or workers to finish connecting. One closed while its Redis
 * connection is still starting reports that connection's failure after the close has removed its
 * listeners, and that unhandled error ends the process: a SIGTERM right after the start did so.
 */
export async function startedOrLate(clients: readonly { waitUntilReady(): Promise<unknown> }[], ms = 5000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.allSettled(clients.map((c) => c.waitUntilReady())), new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
