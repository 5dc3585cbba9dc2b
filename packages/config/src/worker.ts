import { z } from 'zod';
import { common, flag, intFrom, loadCommon, mailTransport, parse, smtpUrl, type CommonConfig, type Env } from './shared';

/** The worker's settings (docs/operations.md#configuration). */

const workerSchema = z.object({
  ...common,
  /** Jobs (notifications) a worker delivers at once; their database work is done together. */
  WORKER_CONCURRENCY: intFrom(256, 1),
  DELIVERY_MAX_ATTEMPTS: intFrom(5, 1),
  /** Messages per minute per project that the worker sends to FCM (FCM's default quota is 600k/min). */
  FCM_RATE_PER_MINUTE: intFrom(600_000, 1),
  /** Messages a project may send at once, before it is paced at FCM_RATE_PER_MINUTE; default: a minute's worth. */
  FCM_RATE_BURST: z.coerce.number().int().min(1).optional(),
  METRICS_PORT: intFrom(9464),
  /** Address the metrics server binds to: loopback unless a container (or the operator) says otherwise. */
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  /** First retry delay for transient FCM errors; doubles per attempt (with jitter), capped at 5 minutes. */
  DELIVERY_RETRY_BASE_MS: intFrom(1000, 1),
  /** Messages per provider request batch. */
  DELIVERY_BATCH_SIZE: intFrom(500, 1),
  /** Messages a fresh worker sends to a loopback stand-in for FCM to warm its code up, while idle; 0: none. */
  WORKER_WARM_UP_MESSAGES: intFrom(2_000, 0),
  /** How long a job lock lives without renewal: a killed worker's job is taken over after this. */
  WORKER_LOCK_DURATION_MS: intFrom(30_000, 1000),
  /**
   * On SIGTERM: the worker takes no more jobs, and the jobs under way have this long to finish; at two
   * thirds of it, those still running hand back what they have not sent (their answers in flight are
   * awaited and written) and run again on another worker. Exit 1 if anything is left at its end.
   */
  SHUTDOWN_GRACE_MS: intFrom(30_000, 1000),
  /** How often queued notifications whose job was lost are looked for. */
  SWEEP_INTERVAL_MS: intFrom(30_000, 100),
  /**
   * Days a final notification (with its deliveries) and a webhook event are kept; 0 keeps everything.
   * At least 7: the dashboard's overview counts the last 7 days, and idempotency keys last 24 hours.
   */
  RETENTION_DAYS: intFrom(30).refine((d) => d === 0 || d >= 7, 'must be 0 (keep everything) or at least 7'),
  /** Days audit log entries are kept; 0 keeps them forever. */
  AUDIT_RETENTION_DAYS: intFrom(365, 0),
  /** The worker mails a project's admins when it disables a failing webhook endpoint. */
  SMTP_URL: smtpUrl,
  MAIL_FROM: z.string().default('Herald <no-reply@herald.local>'),
  MAIL_TRANSPORT: z.enum(['smtp', 'log']).optional(),
  /** Webhook requests: the whole exchange, connect to the last byte read. */
  WEBHOOK_TIMEOUT_MS: intFrom(10_000, 100),
  /** First delay before a failed webhook attempt is retried; doubles per attempt with jitter. */
  WEBHOOK_RETRY_BASE_MS: intFrom(5_000, 1),
  WEBHOOK_RETRY_MAX_DELAY_MS: intFrom(3_600_000, 1),
  /** How long after its event a webhook delivery is still retried. */
  WEBHOOK_RETRY_WINDOW_MS: intFrom(24 * 3_600_000, 1),
  /** An endpoint whose attempts have all failed for this long is disabled (and its admins told). */
  WEBHOOK_DISABLE_AFTER_MS: intFrom(24 * 3_600_000, 1),
  WEBHOOK_CONCURRENCY: intFrom(16, 1),
  /**
   * Webhook requests one project may have in flight over all workers; its other attempts wait their
   * turn, so that one project's slow receivers never take every worker's requests.
   */
  WEBHOOK_PROJECT_CONCURRENCY: intFrom(4, 1),
});

export interface WorkerConfig extends CommonConfig {
  concurrency: number;
  deliveryMaxAttempts: number;
  fcmRatePerMinute: number;
  /** The FCM token bucket's size: what a project may send at once. */
  fcmRateBurst: number;
  metricsPort: number;
  metricsHost: string;
  retryBaseMs: number;
  batchSize: number;
  /** Messages of the idle warm-up at start (0: none). */
  warmUpMessages: number;
  lockDurationMs: number;
  /** SIGTERM: how long the jobs under way may take (they hand back what is left at two thirds of it). */
  shutdownGraceMs: number;
  sweepIntervalMs: number;
  /** Days final notifications and webhook events are kept (0: forever). */
  retentionDays: number;
  /** Days audit log entries are kept (0: forever). */
  auditRetentionDays: number;
  mail: { transport: 'smtp' | 'log'; smtpUrl?: string; from: string };
  webhooks: { timeoutMs: number; retryBaseMs: number; retryMaxDelayMs: number; retryWindowMs: number; disableAfterMs: number; concurrency: number; projectConcurrency: number };
}

export function loadWorkerConfig(env: Env = process.env): WorkerConfig {
  const e = parse(workerSchema, env);
  const base = loadCommon(e);
  // The worker's one mail (a webhook endpoint disabled) carries no secret link: the log is an
  // acceptable transport for it, in production too, with a warning.
  const transport = mailTransport(e.MAIL_TRANSPORT, e.SMTP_URL);
  if (transport === 'log' && base.env === 'production') base.warnings.push('SMTP_URL is not set: the notice to project admins that a failing webhook endpoint was disabled is written to the log');
  return {
    ...base,
    concurrency: e.WORKER_CONCURRENCY,
    deliveryMaxAttempts: e.DELIVERY_MAX_ATTEMPTS,
    fcmRatePerMinute: e.FCM_RATE_PER_MINUTE,
    fcmRateBurst: e.FCM_RATE_BURST ?? e.FCM_RATE_PER_MINUTE,
    metricsPort: e.METRICS_PORT,
    metricsHost: e.METRICS_HOST,
    retryBaseMs: e.DELIVERY_RETRY_BASE_MS,
    batchSize: e.DELIVERY_BATCH_SIZE,
    warmUpMessages: e.WORKER_WARM_UP_MESSAGES,
    lockDurationMs: e.WORKER_LOCK_DURATION_MS,
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    sweepIntervalMs: e.SWEEP_INTERVAL_MS,
    retentionDays: e.RETENTION_DAYS,
    auditRetentionDays: e.AUDIT_RETENTION_DAYS,
    mail: { transport, smtpUrl: e.SMTP_URL, from: e.MAIL_FROM },
    webhooks: {
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      retryBaseMs: e.WEBHOOK_RETRY_BASE_MS,
      retryMaxDelayMs: e.WEBHOOK_RETRY_MAX_DELAY_MS,
      retryWindowMs: e.WEBHOOK_RETRY_WINDOW_MS,
      disableAfterMs: e.WEBHOOK_DISABLE_AFTER_MS,
      concurrency: e.WEBHOOK_CONCURRENCY,
      projectConcurrency: e.WEBHOOK_PROJECT_CONCURRENCY,
    },
  };
}
