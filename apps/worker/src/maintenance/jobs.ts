import type { JobsOptions, Queue } from 'bullmq';

/**
 * The two things every maintenance task does with BullMQ: run itself on a job scheduler, and queue
 * again work whose job was lost.
 */

/** A repeatable job of the queue contracts (packages/core). */
export interface RepeatableJob {
  readonly name: string;
  readonly schedulerId: string;
  readonly options: JobsOptions;
}

/**
 * Runs `job` every `everyMs`, the first one interval from now: one run per interval, on whichever
 * worker takes it. Every worker writes the same schedule at start.
 */
export async function scheduleEvery(queue: Queue, job: RepeatableJob, everyMs: number): Promise<void> {
  await queue.upsertJobScheduler(job.schedulerId, { every: everyMs, startDate: new Date(Date.now() + everyMs) }, { name: job.name, data: {}, opts: job.options });
}

/** Stops running `job` (a task turned off by configuration). */
export async function unschedule(queue: Queue, job: RepeatableJob): Promise<void> {
  await queue.removeJobScheduler(job.schedulerId);
}

/** A job to queue, as packages/core's catalogs build them: its id says whether it is queued already. */
export interface IdentifiedJob {
  name: string;
  data: unknown;
  opts: JobsOptions & { jobId: string };
}

/**
 * Whether the job with this id is lost: not in the queue, or finished (failed for good, or completed
 * without its work being recorded). One waiting in a backlog, delayed or running will come.
 */
export async function isLost(queue: Queue, jobId: string): Promise<boolean> {
  const job = await queue.getJob(jobId);
  const state = job ? await job.getState() : undefined;
  return !state || state === 'failed' || state === 'completed' || state === 'unknown';
}

/** Queues `job` again; a finished job under its id is removed first (adding beside it would be a no-op). */
export async function requeue(queue: Queue, job: IdentifiedJob): Promise<void> {
  const finished = await queue.getJob(job.opts.jobId);
  if (finished) await finished.remove();
  await queue.add(job.name, job.data, job.opts);
}

