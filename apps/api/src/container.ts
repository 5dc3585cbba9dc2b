import { Queue } from 'bullmq';
import type Redis from 'ioredis';
import type { Logger } from 'pino';
import type { ApiConfig } from '@herald/config';
import { NOTIFICATIONS_QUEUE, WEBHOOKS_QUEUE } from '@herald/core';
import { closeDb, createDb, sqlPool, WebhookEvents, type Db } from '@herald/db';
import { ProjectGate } from './http/access';
import { Authenticator } from './http/caller';
import { createLogger } from './logger';
import { createMailer, type Mailer } from '@herald/mail';
import { ProjectReads } from '@herald/project-state';
import { ProjectCache } from './project-cache/project-cache';
import { createRedis } from './redis';

/**
 * The API's infrastructure, built from config (no DI framework): connections, the queue, the mailer
 * and the pieces of the route runtime. Each module builds its own services from it.
 */
export interface ApiContainer {
  config: ApiConfig;
  logger: Logger;
  db: Db;
  redis: Redis;
  /** The producer side of the delivery queue (the worker consumes it). */
  queue: Queue;
  /** The producer side of the webhooks queue (test events). */
  webhookQueue: Queue;
  webhookEvents: WebhookEvents;
  mailer: Mailer;
  /** What the hot routes read about a project, cached per instance and revalidated per request. */
  projectCache: ProjectCache;
  authenticator: Authenticator;
  gate: ProjectGate;
  /** `draining`: SIGTERM came; /ready answers 503 while the requests already accepted finish. */
  lifecycle: { draining: boolean };
  close(): Promise<void>;
}

export interface ContainerOverrides {
  logger?: Logger;
  mailer?: Mailer;
}

export function createContainer(config: ApiConfig, overrides: ContainerOverrides = {}): ApiContainer {
  const logger = overrides.logger ?? createLogger(config.logLevel, undefined, { keepLinkTokens: config.mail.logLinks });
  const db = createDb(config.databaseUrl);
  const redis = createRedis(config, 'herald-api', { autoPipelining: true });
  redis.on('error', (err) => logger.warn({ err: { message: err.message } }, 'redis connection error'));
  // Its own connection, failing fast like `redis`: a send while Redis is away answers 503.
  const queueConnection = createRedis(config, 'herald-api-queue');
  queueConnection.on('error', () => undefined); // reported through `redis` above
  const queue = new Queue(NOTIFICATIONS_QUEUE, { connection: queueConnection, prefix: config.queuePrefix });
  queue.on('error', (err) => logger.warn({ err: { message: err.message } }, 'queue connection error'));
  const webhookQueue = new Queue(WEBHOOKS_QUEUE, { connection: queueConnection, prefix: config.queuePrefix });
  webhookQueue.on('error', () => undefined); // reported through `queue` above
  const mailer = overrides.mailer ?? createMailer({ ...config.mail, logger });
  const projectCache = new ProjectCache(redis, config.queuePrefix, logger, new ProjectReads(sqlPool(db)));
  return {
    config,
    logger,
    db,
    redis,
    queue,
    webhookQueue,
    webhookEvents: new WebhookEvents(db, webhookQueue),
    mailer,
    projectCache,
    authenticator: new Authenticator(db, config.jwt.secret, projectCache, { redis, prefix: config.queuePrefix }),
    gate: new ProjectGate(db),
    lifecycle: { draining: false },
    async close() {
      mailer.close();
      await queue.close().catch(() => undefined);
      await webhookQueue.close().catch(() => undefined);
      queueConnection.disconnect();
      redis.disconnect();
      await closeDb(db);
    },
  };
}
