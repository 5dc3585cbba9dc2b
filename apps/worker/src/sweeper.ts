import type { Queue } from 'bullmq';
import type { Logger } from 'pino';
import { chunk, deliverJobFor, deliverJobId, retryJobFor, sweepJob } from '@herald/core';
import type { DeliveryObserver } from './delivery/delivery.service';
import type { DeliveryRepository } from './delivery/repository';
import type { Purged, Retention } from './retention';

/** A notification still `queued` this long after acceptance, without a live job, has lost its job. */
export const STALE_QUEUED_MS = 30_000;
/** How often the sweeper queues one notification's lost work again before it gives up on it. */
export const MAX_REQUEUES = 5;
/** Lost work looked at per sweep. */
const SWEEP_LIMIT = 500;

/**
 * Finds work whose job was lost and queues it again, so that nothing accepted is ever dropped:
 * - a notification still `queued` a while after it was accepted, without a live deliver job (the API
 *   died between writing the row and enqueuing, or Redis lost the job);
 * - pending deliveries whose retry was due long ago (a worker died between scheduling a retry in
 *   Postgres and adding the delayed job), or that nobody touched for minutes.
 * Re-adding is harmless: jobs only send rows that are still pending, and claim them first. Work
 * queued again `MAX_REQUEUES` times is given up: its pending deliveries fail, and the notification
 * takes its final status. It runs as a BullMQ job scheduler: one sweep per interval, on whichever
 * worker takes the job. With a retention (`RETENTION_DAYS`), each sweep then deletes what has
 * outlived it.
 */
export class Sweeper {
  constructor(
    private readonly repository: DeliveryRepository,
    private readonly queue: Queue,
    private readonly logger: Logger,
    private readonly observe?: DeliveryObserver,
    private readonly retention?: Retention,
  ) {}

  /** Schedules the sweep every `intervalMs` (the first one interval from now); every worker may call it. */
  async schedule(intervalMs: number): Promise<void> {
    await this.queue.upsertJobScheduler(sweepJob.schedulerId, { every: intervalMs, startDate: new Date(Date.now() + intervalMs) }, { name: sweepJob.name, data: {}, opts: sweepJob.options });
  }

  async sweep(): Promise<{ requeued: number; abandoned: number; purged?: Purged }> {
    const requeued: string[] = [];
    const abandoned: string[] = [];
    for (const { id, requeues, jobId } of await this.repository.staleQueued(STALE_QUEUED_MS, SWEEP_LIMIT)) {
      // Its own job, or the one it shares with the sends accepted with it.
      const job = await this.queue.getJob(jobId ?? deliverJobId(id));
      const state = job ? await job.getState() : undefined;
      if (state && state !== 'failed' && state !== 'completed' && state !== 'unknown') continue;
      if (requeues >= MAX_REQUEUES) {
        abandoned.push(id);
        continue;
      }
      // Queued again on a job of its own (a finished shared job stays: it is the others' history too).
      const own = jobId ? await this.queue.getJob(deliverJobId(id)) : job;
      if (own) await own.remove();
      const next = deliverJobFor(id);
      await this.queue.add(next.name, next.data, next.opts);
      requeued.push(id);
    }
    const retries = [];
    for (const { notificationId, requeues, ids } of await this.repository.overdue(SWEEP_LIMIT)) {
      if (requeues >= MAX_REQUEUES) {
        abandoned.push(notificationId);
        continue;
      }
      for (const deliveryIds of chunk(ids, 500)) retries.push(retryJobFor(notificationId, deliveryIds));
      requeued.push(notificationId);
    }
    if (retries.length) await this.queue.addBulk(retries);
    await this.repository.countRequeues(requeued);
    const finished = await this.repository.abandon(abandoned, `Delivery was given up after its lost work was queued again ${MAX_REQUEUES} times`);
    for (const f of finished) this.observe?.finished?.(f);
    if (requeued.length) this.logger.warn({ requeued: requeued.length }, 'sweeper queued lost work again');
    if (abandoned.length) this.logger.error({ notificationIds: abandoned }, 'sweeper gave up on lost work queued again too often');
    const purged = await this.retention?.purge();
    if (purged && (purged.notifications || purged.webhookEvents)) this.logger.info(purged, 'retention: deleted notifications and webhook events older than RETENTION_DAYS');
    return { requeued: requeued.length, abandoned: abandoned.length, purged };
  }
}
