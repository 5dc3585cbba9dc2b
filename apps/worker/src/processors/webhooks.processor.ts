import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import { webhookJob, webhookSweepJob } from '@herald/core';
import type { WebhookSweeper } from '../maintenance/webhook-sweeper';
import type { WebhookDispatcher } from '../webhooks/webhook.service';

/** Parses a job of the webhooks queue and hands it to the dispatcher (or the webhook sweeper). */
export function webhooksProcessor(dispatcher: WebhookDispatcher, sweeper: WebhookSweeper) {
  return async (job: Job, token?: string) => {
    switch (job.name) {
      case webhookJob.name: {
        const data = webhookJob.schema.safeParse(job.data);
        if (!data.success) throw new UnrecoverableError(`Malformed ${job.name} job`);
        // Each run of the job started it once: the runs before this one were put back (or crashed).
        const deferred = await dispatcher.attempt(data.data.deliveryId, data.data.attempt, { deferrals: Math.max(0, (job.attemptsStarted ?? 1) - 1) });
        if (!deferred) return;
        // Its project has its share of requests in flight: the same job comes back in a moment (no attempt used).
        await job.moveToDelayed(Date.now() + deferred.deferMs, token);
        throw new DelayedError();
      }
      case webhookSweepJob.name:
        await sweeper.sweep();
        return;
      default:
        throw new UnrecoverableError(`Unknown job ${job.name}`);
    }
  };
}
