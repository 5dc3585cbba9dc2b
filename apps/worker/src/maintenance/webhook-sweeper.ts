import type { Queue } from 'bullmq';
import type { Logger } from 'pino';
import { FINAL_STATUSES_SQL, webhookJobFor, webhookSweepJob } from '@herald/core';
import { notificationEvent, sqlPool, type Db, type WebhookEvents } from '@herald/db';
import { requeueIfLost, scheduleEvery } from './jobs';

export interface WebhookSweeperOptions {
  db: Db;
  /** The webhooks queue: the sweep runs there, and so do the attempts it queues again. */
  queue: Queue;
  events: WebhookEvents;
  logger: Logger;
}

/**
 * Makes webhook delivery at-least-once when a process dies between two steps:
 * - a pending delivery whose attempt is overdue (its job was never queued, or was lost) is queued
 *   again — a no-op while that attempt's job still exists;
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
    const { rows: overdue } = await sql.query<{ id: string; attempts: number }>({
      name: 'herald_webhookOverdue',
      text: `SELECT "id", "attempts" FROM "WebhookDelivery" WHERE "status" = 'pending' AND "nextAttemptAt" < now() - interval '30 seconds'
             ORDER BY "nextAttemptAt" LIMIT 1000`,
      values: [],
    });
    let requeued = 0;
    // Waiting in a backlog, delayed or running: it will come. A job that failed for good (its
    // database writes kept failing) or completed without recording is replaced.
    for (const d of overdue) if (await requeueIfLost(queue, webhookJobFor(d.id, d.attempts + 1))) requeued++;

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
    const found = requeued + missed.length;
    if (found) logger.warn({ deliveries: requeued, notifications: missed.length }, 'webhook sweeper queued lost work again');
    return found;
  }
}
