import type { Queue } from 'bullmq';
import type { Logger } from 'pino';
import { FINAL_STATUSES_SQL, webhookJobFor, webhookSweepJob } from '@herald/core';
import { notificationEvent, sqlPool, type Db, type WebhookEvents } from '@herald/db';
import { isLost, requeue, scheduleEvery } from './jobs';
import { MAX_REQUEUES } from './sweeper';

export interface WebhookSweeperOptions {
  db: Db;
  /** The webhooks queue: the sweep runs there, and so do the attempts it queues again. */
  queue: Queue;
  events: WebhookEvents;
  logger: Logger;
  /** How long after its event a delivery is still tried (WEBHOOK_RETRY_WINDOW_MS): past it, lost work is given up. */
  retryWindowMs: number;
}

/**
 * Makes webhook delivery at-least-once when a process dies between two steps:
 * - a pending delivery whose attempt is overdue (its job was never queued, or was lost) is queued
 *   again — a no-op while that attempt's job still exists. As the delivery sweeper does, it gives up
 *   on a delivery queued again `MAX_REQUEUES` times (a job that keeps failing: without the cap it would
 *   be sent again at every sweep, for ever) or whose event is older than the retry window: it fails;
 * - a notification that reached a final status in the last day, in a project with an endpoint
 *   subscribed to it, without its event (the worker died between the final write and the emit), gets it.
 * It runs as a BullMQ job scheduler (`webhookSweepJob`): one sweep per interval, on whichever worker
 * takes the job. Its two looks run through node-postgres, so that a worker in a deployment without
 * webhooks never loads Prisma's query engine (see the worker's container); Prisma is used once there
 * is lost work to redo.
 */
export class WebhookSweeper {
  constructor(private readonly options: WebhookSweeperOptions) {}

  /** Sweeps every `intervalMs` (the first one interval from now); every worker may call it. */
  schedule(intervalMs: number): Promise<void> {
    return scheduleEvery(this.options.queue, webhookSweepJob, intervalMs);
  }

  async sweep(): Promise<number> {
    const { db, queue, events, logger } = this.options;
    const sql = sqlPool(db);
    const { rows: overdue } = await sql.query<{ id: string; attempts: number; expired: boolean; requeues: number }>({
      name: 'herald_webhookOverdue',
      text: `SELECT d."id", d."attempts", d."requeues", ev."createdAt" < now() - ($1 * interval '1 millisecond') AS "expired"
             FROM "WebhookDelivery" d JOIN "WebhookEvent" ev ON ev."id" = d."eventId"
             WHERE d."status" = 'pending' AND d."nextAttemptAt" < now() - interval '30 seconds'
             ORDER BY d."nextAttemptAt" LIMIT 1000`,
      values: [this.options.retryWindowMs],
    });
    const requeued: string[] = [];
    const abandoned: string[] = [];
    // Waiting in a backlog, delayed or running: it will come. A job that failed for good (its
    // database writes kept failing) or completed without recording is replaced.
    for (const d of overdue) {
      const job = webhookJobFor(d.id, d.attempts + 1);
      if (!(await isLost(queue, job.opts.jobId))) continue;
      if (d.expired || d.requeues >= MAX_REQUEUES) {
        abandoned.push(d.id);
        continue;
      }
      await requeue(queue, job);
      requeued.push(d.id);
    }
    if (requeued.length) {
      await sql.query({
        name: 'herald_webhookCountRequeues',
        text: `UPDATE "WebhookDelivery" SET "requeues" = "requeues" + 1, "nextAttemptAt" = now(), "updatedAt" = now() WHERE "id" = ANY($1::uuid[]) AND "status" = 'pending'`,
        values: [requeued],
      });
    }
    if (abandoned.length) {
      await sql.query({
        name: 'herald_webhookAbandon',
        text: `UPDATE "WebhookDelivery" SET "status" = 'failed', "nextAttemptAt" = NULL, "error" = $2, "updatedAt" = now() WHERE "id" = ANY($1::uuid[]) AND "status" = 'pending'`,
        values: [abandoned, `Delivery was given up after its lost attempt was queued again ${MAX_REQUEUES} times, or its retry window ended`],
      });
      logger.error({ deliveryIds: abandoned }, 'webhook sweeper gave up on lost work queued again too often or too old');
    }

    const { rows: missed } = await sql.query<{ id: string }>({
      name: 'herald_webhookMissed',
      text: `SELECT DISTINCT n."id" FROM "WebhookEndpoint" e
      JOIN "Notification" n ON n."projectId" = e."projectId" AND n."createdAt" > now() - interval '1 day'
      WHERE e."enabled" AND n."status"::text IN (${FINAL_STATUSES_SQL})
        AND n."completedAt" > e."createdAt" AND n."completedAt" < now() - interval '1 minute'
        AND ('notification.' || n."status"::text) = ANY(e."events")
        AND NOT EXISTS (SELECT 1 FROM "WebhookEvent" ev WHERE ev."projectId" = n."projectId" AND ev."dedupeKey" = 'notification:' || n."id"::text)
      LIMIT 500`,
      values: [],
    });
    for (const { id } of missed) {
      const n = await db.notification.findUnique({ where: { id } });
      if (n) await events.emit(n.projectId, [notificationEvent(n)]);
    }
    const found = requeued.length + missed.length;
    if (found) logger.warn({ deliveries: requeued.length, notifications: missed.length }, 'webhook sweeper queued lost work again');
    return found;
  }
}
