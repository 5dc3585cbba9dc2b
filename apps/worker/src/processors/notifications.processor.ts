import { UnrecoverableError, type Job } from 'bullmq';
import { deliverJob, retryJob } from '@herald/core';
import type { DeliveryService } from '../delivery/delivery.service';

/** Whom the rows a job sends are claimed for: the job, whichever worker runs it. */
const claimantOf = (job: Job) => `job:${job.id ?? job.name}`;

/** Parses a job of the notifications queue and hands it to the delivery service. */
export function notificationsProcessor(delivery: DeliveryService) {
  return async (job: Job) => {
    switch (job.name) {
      case deliverJob.name: {
        const data = deliverJob.schema.safeParse(job.data);
        if (!data.success) throw new UnrecoverableError(`Malformed ${job.name} job`);
        return delivery.deliver(data.data.notificationId, undefined, claimantOf(job));
      }
      case retryJob.name: {
        const data = retryJob.schema.safeParse(job.data);
        if (!data.success) throw new UnrecoverableError(`Malformed ${job.name} job`);
        return delivery.deliver(data.data.notificationId, data.data.deliveryIds, claimantOf(job));
      }
      default:
        throw new UnrecoverableError(`Unknown job ${job.name}`);
    }
  };
}
