import type { Queue } from 'bullmq';
import type Redis from 'ioredis';
import type { Logger } from 'pino';
import { FINAL_STATUSES_SQL, webhookJobFor } from '@herald/core';
import { notificationEvent, sqlPool, type Db, type WebhookEvents } from '@herald/db';

/**
 * Makes webhook delivery at-least-once when a process dies between two steps:
 * - a pending delivery whose attempt is overdue (its job was never queued, or was lost) is queued
 *   again — a no-op while that attempt's job still exists;
 * - a notification that reached a final status in the last day, in a project with an endpoint
 *   subscribed to it, without its event (the worker died between the final write and the emit), gets it.
 * One worker sweeps at a time (a Redis lock). Its two looks run through node-postgres, so that a
 * worker in a deployment without webhooks never loads Prisma's query engine (see the worker's
 * container); Prisma is used once there is lost work to redo.
 */
export class WebhookSweeper {
  constructor(
    private readonly db: Db,
    private readonly queue: Queue,
    private readonly events: WebhookEvents,
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly intervalMs: number,
    private readonly logger: Logger,
  ) {}

  async sweep(): Promise<number> {
    const locked = await this.redis.set(`${this.prefix}:webhook-sweeper-lock`, String(process.pid), 'PX', Math.max(1000, this.intervalMs - 100), 'NX');
    if (!locked) return 0;
    const sql = sqlPool(this.db);
    const { rows: overdue } = await sql.query<{ id: string; attempts: number }>({
      name: 'herald_webhookOverdue',
      text: `SELECT "id", "attempts" FROM "WebhookDelivery" WHERE "status" = 'pending' AND "nextAttemptAt" < now() - interval '30 seconds'
             ORDER BY "nextAttemptAt" LIMIT 1000`,
      values: [],
    });
    let requeued = 0;
    for (const d of overdue) {
      const next = webhookJobFor(d.id, d.attempts + 1);
      const job = await this.queue.getJob(next.opts.jobId);
      const state = job ? await job.getState() : undefined;
      // Waiting in a backlog, delayed or running: it will come. A job that failed for good (its
      // database writes kept failing) or completed without recording is replaced.
      if (state && state !== 'failed' && state !== 'completed') continue;
      if (job) await job.remove();
      await this.queue.add(next.name, next.data, next.opts);
      requeued++;
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
      const n = await this.db.notification.findUnique({ where: { id } });
      if (n) await this.events.emit(n.projectId, [notificationEvent(n)]);
    }
    const found = requeued + missed.length;
    if (found) this.logger.warn({ deliveries: requeued, notifications: missed.length }, 'webhook sweeper queued lost work again');
    return found;
  }

  start(): () => void {
    const timer = setInterval(() => {
      this.sweep().catch((err) => this.logger.warn({ err: { message: (err as Error).message } }, 'webhook sweep failed'));
    }, this.intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  }
}
