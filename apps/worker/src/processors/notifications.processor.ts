import { UnrecoverableError, type Job } from 'bullmq';
import { deliverJob, retryJob } from '@herald/core';
import type { DeliveryService } from '../delivery/delivery.service';

/** Parses a job of the notifications queue and hands it to the delivery service. */
export function notificationsProcessor(delivery: DeliveryService) {
  return async (job: Job) => {
    switch (job.name) {
      case deliverJob.name: {
        const data = deliverJob.schema.safeParse(job.data);
        if (!data.success) throw new UnrecoverableError(`Malformed ${job.name} job`);
        return delivery.deliver(data.data.notificationId);
      }
      case retryJob.name: {
        const data = retryJob.schema.safeParse(job.data);
        if (!data.success) throw new UnrecoverableError(`Malformed ${job.name} job`);
        return delivery.deliver(data.data.notificationId, data.data.deliveryIds);
      }
      default:
        throw new UnrecoverableError(`Unknown job ${job.name}`);
    }
  };
}
