import { z } from 'zod';

/**
 * The notifications queue, as the API (producer) and the worker (consumer) both read it. Jobs carry ids, never rendered
 * content: the Postgres rows are the source of truth, so a re-run job sees what was already delivered.
 */
export const NOTIFICATIONS_QUEUE = 'notifications';

/** Notifications one shared deliver job carries at most. */
export const MAX_NOTIFICATIONS_PER_JOB = 100;

/**
 * A notification's delivery: its own job (`{ notificationId }`, id `deliver-<id>`: a scheduled send,
 * or a send accepted alone), or a job shared by sends accepted together (`{ notificationIds }`, id
 * `sharedDeliverJobId()`, named in each notification's row) — the worker pays a job's fixed cost once
 * for all of them.
 */
export const deliverJob = {
  name: 'deliver',
  schema: z.union([z.object({ notificationId: z.uuid() }), z.object({ notificationIds: z.array(z.uuid()).min(1).max(MAX_NOTIFICATIONS_PER_JOB) })]),
  /** BullMQ-level attempts cover crashes and infrastructure errors; per-device retries are `retryJob`s. */
  options: {
    attempts: 8,
    backoff: { type: 'exponential', delay: 2000 },
    removeOnComplete: { age: 24 * 3600, count: 50_000 },
    removeOnFail: { age: 7 * 24 * 3600 },
  },
} as const;

/** Delayed work: deliveries whose last attempt was transient (or throttled), sent again when due. */
export const retryJob = {
  name: 'retry',
  schema: z.object({ notificationId: z.uuid(), deliveryIds: z.array(z.uuid()).min(1) }),
  options: {
    attempts: 8,
    backoff: { type: 'exponential', delay: 2000 },
    removeOnComplete: { age: 3600, count: 50_000 },
    removeOnFail: { age: 7 * 24 * 3600 },
  },
} as const;

export type DeliverJobData = z.infer<typeof deliverJob.schema>;
export type RetryJobData = z.infer<typeof retryJob.schema>;

/** The job id of a notification's own deliver job: adding it twice is a no-op while the job exists. */
export const deliverJobId = (notificationId: string) => `deliver-${notificationId}`;

/** A new id for a deliver job shared by several notifications. */
export const sharedDeliverJobId = () => `deliver-shared-${globalThis.crypto.randomUUID()}`;

/**
 * The jobs of the notifications queue as `Queue.add` and `addBulk` take them: every place that queues
 * delivery work builds its jobs here, as webhooks do with `webhookJobFor`.
 */

/**
 * A scheduled send due later than this has no job yet: it waits in Postgres (where it is already),
 * and the worker's sweeper queues its delayed job once it is due within this. A delayed job costs
 * Redis about a kilobyte for as long as it waits, and Redis runs without eviction: sends scheduled
 * weeks ahead must not fill it.
 */
export const SCHEDULE_AHEAD_MS = 10 * 60_000;

/** A notification's own deliver job (adding it twice is a no-op while it exists); `delay` for a scheduled send. */
export const deliverJobFor = (notificationId: string, delay = 0) => ({
  name: deliverJob.name,
  data: { notificationId } satisfies DeliverJobData,
  opts: { ...deliverJob.options, jobId: deliverJobId(notificationId), ...(delay > 0 ? { delay } : {}) },
});

/**
 * The job id of the deliver job that sends a notification's deliveries held until `dueAt` (epoch ms:
 * their local time, or the end of quiet hours): one per notification and due moment, shared by every
 * device due then — a broadcast over 30 zones makes about 30 jobs, not one per device.
 */
export const heldDeliverJobId = (notificationId: string, dueAt: number) => `deliver-${notificationId}-at-${dueAt}`;

/** The delayed deliver job of a notification's deliveries due at `dueAt` (adding it twice is a no-op while it exists). */
export const heldDeliverJobFor = (notificationId: string, dueAt: number, now = Date.now()) => ({
  name: deliverJob.name,
  data: { notificationId } satisfies DeliverJobData,
  opts: { ...deliverJob.options, jobId: heldDeliverJobId(notificationId, dueAt), delay: Math.max(0, dueAt - now) },
});

/** The deliver job shared by notifications accepted together, under the id their rows name. */
export const sharedDeliverJobFor = (jobId: string, notificationIds: string[]) => ({
  name: deliverJob.name,
  data: { notificationIds } satisfies DeliverJobData,
  opts: { ...deliverJob.options, jobId },
});

/** Deliveries of one notification sent again after `delay`. */
export const retryJobFor = (notificationId: string, deliveryIds: string[], delay = 0) => ({
  name: retryJob.name,
  data: { notificationId, deliveryIds } satisfies RetryJobData,
  opts: { ...retryJob.options, ...(delay > 0 ? { delay } : {}) },
});

/** The notifications a deliver job carries. */
export const notificationsOf = (data: DeliverJobData): string[] => ('notificationIds' in data ? data.notificationIds : [data.notificationId]);

/**
 * The worker's maintenance: repeatable jobs, each run by a BullMQ job scheduler (`schedulerId`), so
 * that one run happens per interval however many workers there are, on whichever takes the job.
 */
const maintenanceOptions = { removeOnComplete: { count: 10 }, removeOnFail: { count: 100 } } as const;

/** Looks for delivery work whose job was lost, and queues it again. */
export const sweepJob = { name: 'sweep', schedulerId: 'herald-sweeper', options: maintenanceOptions } as const;

/** Deletes what has outlived `RETENTION_DAYS`. */
export const retentionJob = { name: 'purge', schedulerId: 'herald-retention', options: maintenanceOptions } as const;

/** Looks for webhook work whose job was lost (on the webhooks queue). */
export const webhookSweepJob = { name: 'sweep', schedulerId: 'herald-webhook-sweeper', options: maintenanceOptions } as const;

/**
 * One page of a broadcast's fan-out: its planned deliveries, sent as a retry job is (claimed, then
 * sent), on whichever worker takes it. Its id names the page (the last device id planned in it), so
 * that a worker taking a fan-out over adds the last page's job again without doubling it.
 */
export const fanOutPageJobId = (notificationId: string, cursor: string) => `fanout-${notificationId}-${cursor}`;

export const fanOutPageJobFor = (notificationId: string, deliveryIds: string[], cursor: string, delay = 0) => ({
  name: retryJob.name,
  data: { notificationId, deliveryIds } satisfies RetryJobData,
  opts: { ...retryJob.options, jobId: fanOutPageJobId(notificationId, cursor), ...(delay > 0 ? { delay } : {}) },
});
