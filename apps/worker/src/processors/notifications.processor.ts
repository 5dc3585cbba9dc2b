import { UnrecoverableError, type Job } from 'bullmq';
import { deliverJob, notificationsOf, retentionJob, retryJob, sweepJob } from '@herald/core';
import type { DeliveryService } from '../delivery/delivery.service';
import type { Retention } from '../maintenance/retention';
import type { Sweeper } from '../maintenance/sweeper';

/** Whom the rows a job sends are claimed for: this run of the job (BullMQ's lock token is one per run). */
const claimantOf = (job: Job, token: string | undefined) => `job:${job.id ?? job.name}:${token ?? 'run'}`;

/** Parses a job of the notifications queue and hands it to the delivery service (or to maintenance). */
export function notificationsProcessor(delivery: DeliveryService, maintenance: { sweeper: Sweeper; retention: Retention }) {
  return async (job: Job, token?: string) => {
    switch (job.name) {
      case deliverJob.name: {
        const data = deliverJob.schema.safeParse(job.data);
        if (!data.success) throw new UnrecoverableError(`Malformed ${job.name} job`);
        // A shared job delivers its notifications side by side; it fails (and runs again) if any of
        // them failed, and a run again skips those that are final.
        const claimant = claimantOf(job, token);
        const results = await Promise.allSettled(notificationsOf(data.data).map((notificationId) => delivery.deliver({ notificationId, claimant })));
        const failed = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as Error] : []));
        if (failed.length && results.length === 1) throw failed[0];
        if (failed.length) throw new Error(`${failed.length} of the job's ${results.length} notifications failed; the first: ${failed[0].message}`);
        return;
      }
      case retryJob.name: {
        const data = retryJob.schema.safeParse(job.data);
        if (!data.success) throw new UnrecoverableError(`Malformed ${job.name} job`);
        return delivery.deliver({ notificationId: data.data.notificationId, deliveryIds: data.data.deliveryIds, claimant: claimantOf(job, token) });
      }
      case sweepJob.name:
        await maintenance.sweeper.sweep();
        return;
      case retentionJob.name:
        await maintenance.retention.purge();
        return;
      default:
        throw new UnrecoverableError(`Unknown job ${job.name}`);
    }
  };
}
