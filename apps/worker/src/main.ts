import { Worker } from 'bullmq';
import { loadWorkerConfig, loadOrExit } from '@herald/config';
import { NOTIFICATIONS_QUEUE, WEBHOOKS_QUEUE } from '@herald/core';
import { createWorkerContainer, startedOrLate, type WorkerContainer } from './container';
import { createWorkerMetrics } from './metrics';
import { notificationsProcessor } from './processors/notifications.processor';
import { webhooksProcessor } from './processors/webhooks.processor';
import { installLeanAsyncResourceBind } from './tuning/async-resource-bind';
import { warmUpWhenIdle } from './tuning/warm-up';

async function main() {
  installLeanAsyncResourceBind();
  const config = loadOrExit(loadWorkerConfig);
  // The signal handlers come first: a SIGTERM that arrives before them (a pod stopped while it starts,
  // or just after it said it started, before its next line ran) would kill the process at once, as the
  // default action does. One that arrives during the start is acted on once the start is done.
  let shutdown: ((signal: string) => Promise<void>) | undefined;
  let signalledDuringStart: string | undefined;
  const onSignal = (signal: string) => {
    if (shutdown) void shutdown(signal);
    else if (!signalledDuringStart) {
      signalledDuringStart = signal;
      // A start that cannot finish (Postgres or Redis unreachable) does not keep a stopped worker alive.
      setTimeout(() => process.exit(1), config.shutdownGraceMs).unref();
    }
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));
  // The metrics observe the container's services and read its queues: made first, given the queues after.
  const queues: Partial<Pick<WorkerContainer, 'queue' | 'webhookQueue'>> = {};
  const metrics = createWorkerMetrics(
    () => queues.queue!,
    () => queues.webhookQueue!,
  );
  const c = createWorkerContainer(config, { observe: metrics.observer, observeWebhooks: metrics.webhookObserver, observeRetention: metrics.retentionObserver });
  Object.assign(queues, { queue: c.queue, webhookQueue: c.webhookQueue });
  for (const warning of config.warnings) c.logger.warn(warning);
  if (config.fcmEmulatorHost) c.logger.warn({ host: config.fcmEmulatorHost }, 'FCM_EMULATOR_HOST is set: sending to the FCM emulator, not to Google');

  const worker = new Worker(NOTIFICATIONS_QUEUE, notificationsProcessor(c.delivery, c.maintenance), {
    connection: c.connection.duplicate(),
    prefix: config.queuePrefix,
    concurrency: config.concurrency,
    lockDuration: config.lockDurationMs,
    stalledInterval: Math.max(1000, Math.floor(config.lockDurationMs / 2)),
    maxStalledCount: 5,
  });
  worker.on('failed', (job, err) => c.logger.warn({ jobId: job?.id, notificationId: job?.data?.notificationId, notifications: job?.data?.notificationIds?.length, err: { message: err.message } }, 'job failed'));
  worker.on('stalled', (jobId) => c.logger.warn({ jobId }, 'job stalled (its worker died or was blocked); it runs again'));
  worker.on('error', (err) => c.logger.warn({ err: { message: err.message } }, 'worker error'));
  let stopping = false;
  warmUpWhenIdle(worker, () => c.warmUpDelivery(() => stopping), c.logger);
  const webhookWorker = new Worker(WEBHOOKS_QUEUE, webhooksProcessor(c.webhooks, c.maintenance.webhookSweeper), {
    connection: c.connection.duplicate(),
    prefix: config.queuePrefix,
    concurrency: config.webhooks.concurrency,
    // Longer than a request may take (WEBHOOK_TIMEOUT_MS), so that a slow receiver is not taken for a dead worker.
    lockDuration: Math.max(config.lockDurationMs, config.webhooks.timeoutMs + 10_000),
  });
  webhookWorker.on('failed', (job, err) => c.logger.warn({ jobId: job?.id, err: { message: err.message } }, 'webhook job failed'));
  webhookWorker.on('error', (err) => c.logger.warn({ err: { message: err.message } }, 'webhook worker error'));
  // Not waited for: a worker delivers while the schedules are written (every worker writes the same ones).
  for (const [task, maintenance] of Object.entries(c.maintenance)) {
    maintenance.schedule(config.sweepIntervalMs).catch((err: unknown) => c.logger.error({ task, err: { message: (err as Error).message } }, 'could not schedule a maintenance job'));
  }
  try {
    await c.warmUp();
  } catch (err) {
    c.logger.fatal({ err: { message: (err as Error).message } }, 'the database cannot be reached; the worker stops');
    process.exit(1);
  }
  c.delivery.start();
  c.rollouts.start();
  const metricsServer = config.metricsEnabled ? await metrics.listen(config.metricsPort, config.metricsHost, config.metricsToken) : undefined;
  const metricsPort = (metricsServer?.address() as { port: number } | null)?.port;
  c.logger.info({ concurrency: config.concurrency, metricsPort }, 'Herald worker started');

  shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    // No new job is taken; the jobs under way finish, or at two thirds of the grace period hand back
    // what they have not sent (their answers in flight are awaited and written) to run elsewhere.
    const graceMs = config.shutdownGraceMs;
    c.logger.info({ signal, graceMs }, 'shutting down: finishing in-flight jobs');
    const force = setTimeout(() => {
      c.logger.error('jobs still running at the end of the shutdown grace period; exiting (their claims lapse, and another worker takes them over)');
      process.exit(1);
    }, graceMs).unref();
    const handBack = setTimeout(() => {
      c.logger.info('shutting down: handing back what the running jobs have not sent');
      c.delivery.handBack();
    }, Math.floor((graceMs * 2) / 3)).unref();
    metricsServer?.close();
    await startedOrLate([worker, webhookWorker]);
    await Promise.all([worker.close(), webhookWorker.close(), c.rollouts.stop()]);
    clearTimeout(handBack);
    await c.outcomeEvents.drain();
    await c.close().catch(() => undefined);
    clearTimeout(force);
    process.exit(0);
  };
  if (signalledDuringStart) void shutdown(signalledDuringStart);
}

void main();
