import type { Queue } from 'bullmq';
import type Redis from 'ioredis';
import type { Logger } from 'pino';
import { deliverJob, deliverJobId, retryJob } from '@herald/core';
import type { Db } from '@herald/db';

/**
 * Finds work whose job was lost and queues it again, so that nothing accepted is ever dropped:
 * - a notification still `queued` a while after it was accepted, without a live deliver job (the API
 *   died between writing the row and enqueuing, or Redis lost the job);
 * - pending deliveries whose retry was due long ago (a worker died between scheduling a retry in
 *   Postgres and adding the delayed job), or that nobody touched for minutes (a job that exhausted
 *   its attempts during an outage).
 * One worker sweeps at a time (a Redis lock); re-adding is harmless because jobs only send rows
 * that are still pending, and claim them first: a row another job is sending is left to it.
 */
export class Sweeper {
  constructor(
    private readonly db: Db,
    private readonly queue: Queue,
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly intervalMs: number,
    private readonly logger: Logger,
  ) {}

  async sweep(): Promise<number> {
    const locked = await this.redis.set(`${this.prefix}:sweeper-lock`, String(process.pid), 'PX', Math.max(1000, this.intervalMs - 100), 'NX');
    if (!locked) return 0;
    let requeued = 0;
    const stale = await this.db.notification.findMany({
      where: { status: 'queued', createdAt: { lt: new Date(Date.now() - 30_000) } },
      select: { id: true },
      orderBy: { createdAt: 'asc' },
      take: 500,
    });
    for (const { id } of stale) {
      const job = await this.queue.getJob(deliverJobId(id));
      const state = job ? await job.getState() : undefined;
      if (state && state !== 'failed' && state !== 'completed') continue;
      if (job) await job.remove();
      await this.queue.add(deliverJob.name, { notificationId: id }, { ...deliverJob.options, jobId: deliverJobId(id) });
      await this.db.notification.updateMany({ where: { id }, data: { enqueuedAt: new Date() } });
      requeued++;
    }
    const overdue = await this.db.$queryRaw<{ notificationId: string; ids: string[] }[]>`
      SELECT "notificationId", array_agg("id") AS ids FROM "Delivery"
      WHERE "status" = 'pending'
        AND (("nextAttemptAt" IS NOT NULL AND "nextAttemptAt" < now() - interval '60 seconds')
          OR ("nextAttemptAt" IS NULL AND "updatedAt" < now() - interval '5 minutes'))
      GROUP BY "notificationId" LIMIT 500`;
    for (const { notificationId, ids } of overdue) {
      for (let i = 0; i < ids.length; i += 500) {
        await this.queue.add(retryJob.name, { notificationId, deliveryIds: ids.slice(i, i + 500) }, retryJob.options);
      }
      requeued++;
    }
    if (requeued) this.logger.warn({ requeued }, 'sweeper queued lost work again');
    return requeued;
  }

  start(): () => void {
    const timer = setInterval(() => {
      this.sweep().catch((err) => this.logger.warn({ err: { message: (err as Error).message } }, 'sweep failed'));
    }, this.intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  }
}
