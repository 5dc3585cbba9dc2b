import type { Queue } from 'bullmq';
import type { Logger } from 'pino';
import { chunk, deliverJobFor, deliverJobId, retryJobFor, SCHEDULE_AHEAD_MS, sweepJob } from '@herald/core';
import type { DeliveryObserver } from '../delivery/delivery.service';
import { isLost, requeue, scheduleEvery } from './jobs';
import type { LostWorkQueries } from './lost-work';

/** A notification still `queued` this long after acceptance, without a live job, has lost its job. */
export const STALE_QUEUED_MS = 30_000;
/** How often the sweeper queues one notification's lost work again before it gives up on it. */
export const MAX_REQUEUES = 5;
/** Lost work looked at per sweep. */
const SWEEP_LIMIT = 500;

export interface SweeperOptions {
  queries: LostWorkQueries;
  /** The notifications queue. */
  queue: Queue;
  logger: Logger;
  /** Hears the notifications it gives up on, as delivery's own finished ones. */
  observe?: DeliveryObserver;
}

/**
 * Queues the delayed jobs of sends scheduled far ahead as they come within SCHEDULE_AHEAD_MS, and
 * finds delivery work whose job was lost and queues it again, so that nothing accepted is ever dropped:
 * - a notification still `queued` a while after it was accepted, without a live deliver job (the API
 *   died between writing the row and enqueuing, or Redis lost the job);
 * - pending deliveries whose retry was due long ago (a worker died between scheduling a retry in
 *   Postgres and adding the delayed job), or that nobody touched for minutes.
 * Re-adding is harmless: jobs only send rows that are still pending, and claim them first. Work
 * queued again `MAX_REQUEUES` times is given up: its pending deliveries fail, and the notification
 * takes its final status. It runs as a BullMQ job scheduler (`sweepJob`): one sweep per interval, on
 * whichever worker takes the job.
 */
export class Sweeper {
  constructor(private readonly options: SweeperOptions) {}

  /** Sweeps every `intervalMs` (the first one interval from now); every worker may call it. */
  schedule(intervalMs: number): Promise<void> {
    return scheduleEvery(this.options.queue, sweepJob, intervalMs);
  }

  async sweep(): Promise<{ requeued: number; abandoned: number; promoted: number }> {
    const { queries, queue, logger, observe } = this.options;
    // Sends scheduled far ahead waited in Postgres only; their delayed jobs are added as they come due.
    // In time with any SWEEP_INTERVAL_MS under SCHEDULE_AHEAD_MS; should one be missed, the stale look below still finds it.
    const promoted = await queries.promoteScheduled(SCHEDULE_AHEAD_MS, SWEEP_LIMIT * 4);
    if (promoted.length) await queue.addBulk(promoted.map((n) => deliverJobFor(n.id, n.sendAt.getTime() - Date.now())));
    const requeued: string[] = [];
    const abandoned: string[] = [];
    for (const { id, requeues, jobId } of await queries.staleQueued(STALE_QUEUED_MS, SWEEP_LIMIT)) {
      // Its own job, or the one it shares with the sends accepted with it.
      if (!(await isLost(queue, jobId ?? deliverJobId(id)))) continue;
      if (requeues >= MAX_REQUEUES) {
        abandoned.push(id);
        continue;
      }
      // Queued again on a job of its own (a finished shared job stays: it is the others' history too).
      await requeue(queue, deliverJobFor(id));
      requeued.push(id);
    }
    const retries = [];
    for (const { notificationId, requeues, ids } of await queries.overdue(SWEEP_LIMIT)) {
      if (requeues >= MAX_REQUEUES) {
        abandoned.push(notificationId);
        continue;
      }
      for (const deliveryIds of chunk(ids, 500)) retries.push(retryJobFor(notificationId, deliveryIds));
      requeued.push(notificationId);
    }
    if (retries.length) await queue.addBulk(retries);
    await queries.countRequeues(requeued);
    const finished = await queries.abandon(abandoned, `Delivery was given up after its lost work was queued again ${MAX_REQUEUES} times`);
    for (const f of finished) observe?.finished?.(f);
    if (requeued.length) logger.warn({ requeued: requeued.length }, 'sweeper queued lost work again');
    if (abandoned.length) logger.error({ notificationIds: abandoned }, 'sweeper gave up on lost work queued again too often');
    return { requeued: requeued.length, abandoned: abandoned.length, promoted: promoted.length };
  }
}
