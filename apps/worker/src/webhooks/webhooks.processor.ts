import { UnrecoverableError, type Job } from 'bullmq';
import { webhookJob } from '@herald/core';
import type { WebhookDispatcher } from './webhook.service';

/** Parses a job of the webhooks queue and hands it to the dispatcher. */
export function webhooksProcessor(dispatcher: WebhookDispatcher) {
  return async (job: Job) => {
    if (job.name !== webhookJob.name) throw new UnrecoverableError(`Unknown job ${job.name}`);
    const data = webhookJob.schema.safeParse(job.data);
    if (!data.success) throw new UnrecoverableError(`Malformed ${job.name} job`);
    await dispatcher.attempt(data.data.deliveryId, data.data.attempt);
  };
}
