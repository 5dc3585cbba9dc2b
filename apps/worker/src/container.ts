import { Queue } from 'bullmq';
import Redis from 'ioredis';
import pino, { type Logger } from 'pino';
import type { WorkerConfig } from '@herald/config';
import { NOTIFICATIONS_QUEUE, WEBHOOKS_QUEUE, createTemplateCompiler } from '@herald/core';
import { createDb, loadProviderCredentials, WebhookEvents, type Db } from '@herald/db';
import { createMailer, type Mailer } from '@herald/mail';
import { ProviderPool } from '@herald/providers';
import { DeliveryService, type DeliveryObserver } from './delivery/delivery.service';
import { SendRateLimiter } from './delivery/rate-limiter';
import { WebhookDispatcher, type WebhookObserver } from './webhooks/webhook.service';

export interface WorkerContainer {
  config: WorkerConfig;
  logger: Logger;
  db: Db;
  /** BullMQ's connection: commands wait while Redis is away instead of failing (workers recover by themselves). */
  connection: Redis;
  queue: Queue;
  delivery: DeliveryService;
  /** The webhooks queue (its own, so that a slow receiver never holds up push delivery). */
  webhookQueue: Queue;
  /** Emits outcome events (e.g. from delivery's final step). */
  webhookEvents: WebhookEvents;
  webhooks: WebhookDispatcher;
  mailer: Mailer;
  close(): Promise<void>;
}

export interface WorkerOverrides {
  logger?: Logger;
  observe?: DeliveryObserver;
  observeWebhooks?: WebhookObserver;
  mailer?: Mailer;
}

export function createWorkerContainer(config: WorkerConfig, overrides: WorkerOverrides = {}): WorkerContainer {
  const logger = overrides.logger ?? pino({ level: config.logLevel, base: { service: 'herald-worker' } });
  const db = createDb(config.databaseUrl, { poolSize: Math.max(4, config.concurrency + 2) });
  const connection = new Redis(config.redisUrl, { maxRetriesPerRequest: null, connectionName: 'herald-worker' });
  connection.on('error', (err) => logger.warn({ err: { message: err.message } }, 'redis connection error'));
  const queue = new Queue(NOTIFICATIONS_QUEUE, { connection, prefix: config.queuePrefix });
  const webhookQueue = new Queue(WEBHOOKS_QUEUE, { connection, prefix: config.queuePrefix });
  const webhookEvents = new WebhookEvents(db, webhookQueue);
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
    observe: overrides.observeWebhooks,
  });
  const clients = new ProviderPool({ emulatorHost: config.fcmEmulatorHost, logger: logger.child({ component: 'fcm' }) });
  const compiler = createTemplateCompiler({ cacheSize: 1000 });
  const delivery = new DeliveryService({
    db,
    queue,
    logger,
    loadProviders: (projectId) =>
      loadProviderCredentials(db, config.encryption, projectId, (providerConfigId, err) =>
        logger.error({ providerConfigId, err: { message: err.message } }, 'provider credentials cannot be decrypted; skipping this provider'),
      ),
    client: (p) => clients.get(p),
    rateLimiter: new SendRateLimiter(connection, config.queuePrefix, config.fcmRatePerMinute),
    compile: (source) => compiler.compile(source),
    policy: { maxAttempts: config.deliveryMaxAttempts, baseDelayMs: config.retryBaseMs, maxDelayMs: 5 * 60_000 },
    batchSize: config.batchSize,
    observe: overrides.observe,
  });
  return {
    config,
    logger,
    db,
    connection,
    queue,
    delivery,
    webhookQueue,
    webhookEvents,
    webhooks,
    mailer,
    async close() {
      await queue.close();
      await webhookQueue.close();
      mailer.close();
      await clients.close();
      connection.disconnect();
      await db.$disconnect();
    },
  };
}
