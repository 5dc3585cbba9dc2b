import http from 'node:http';
import type { Queue } from 'bullmq';
import { bearerMatches, errorBody } from '@herald/core';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { DeliveryObserver } from './delivery/delivery.service';
import type { Purged } from './maintenance/retention';
import type { WebhookObserver } from './webhooks/webhook.service';

/**
 * Prometheus metrics of one worker: queue depth and age (read from Redis at scrape time), delivery
 * outcomes, provider latency, retries, failovers and pruned tokens; webhook attempts and deliveries
 * by outcome and the webhooks queue's depth.
 */
export function createWorkerMetrics(queue: () => Queue, webhookQueue: () => Queue) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'herald_worker_' });
  const outcomes = new Counter({ name: 'herald_deliveries_total', help: 'Device deliveries by outcome', labelNames: ['outcome'], registers: [registry] });
  const retries = new Counter({ name: 'herald_delivery_retries_total', help: 'Deliveries scheduled for a retry after a transient error', registers: [registry] });
  const failovers = new Counter({ name: 'herald_delivery_failovers_total', help: 'Deliveries moved to the next provider', registers: [registry] });
  const pruned = new Counter({ name: 'herald_tokens_pruned_total', help: 'Device tokens deleted as invalid', registers: [registry] });
  const notifications = new Counter({ name: 'herald_notifications_finished_total', help: 'Notifications finished, by final status', labelNames: ['status'], registers: [registry] });
  const latency = new Histogram({
    name: 'herald_provider_batch_duration_seconds',
    help: 'Time to send one batch to a provider',
    labelNames: ['provider'],
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const messages = new Counter({ name: 'herald_provider_messages_total', help: 'Messages sent to providers', labelNames: ['provider'], registers: [registry] });

  new Gauge({
    name: 'herald_queue_jobs',
    help: 'Jobs in the notifications queue by state',
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      const counts = await queue().getJobCounts('waiting', 'active', 'delayed', 'failed', 'prioritized');
      for (const [state, n] of Object.entries(counts)) this.set({ state }, n);
    },
  });
  new Gauge({
    name: 'herald_queue_oldest_waiting_seconds',
    help: 'Age of the oldest job waiting to be processed',
    registers: [registry],
    async collect() {
      const [oldest] = await queue().getJobs(['waiting'], 0, 0, true);
      this.set(oldest ? Math.max(0, (Date.now() - oldest.timestamp) / 1000) : 0);
    },
  });

  const webhookAttempts = new Counter({
    name: 'herald_webhook_attempts_total',
    help: 'Webhook requests by outcome (succeeded, http_error, timeout, network_error, refused, endpoint_disabled)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const webhookDeliveries = new Counter({ name: 'herald_webhook_deliveries_total', help: 'Webhook deliveries finished, by final status', labelNames: ['outcome'], registers: [registry] });
  const webhooksDisabled = new Counter({ name: 'herald_webhook_endpoints_disabled_total', help: 'Webhook endpoints disabled after failing continuously', registers: [registry] });
  new Gauge({
    name: 'herald_webhook_queue_jobs',
    help: 'Jobs in the webhooks queue by state',
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      const counts = await webhookQueue().getJobCounts('waiting', 'active', 'delayed', 'failed', 'prioritized');
      for (const [state, n] of Object.entries(counts)) this.set({ state }, n);
    },
  });
  const webhookObserver: WebhookObserver = {
    attempt(outcome) {
      webhookAttempts.inc({ outcome });
    },
    finished(status) {
      webhookDeliveries.inc({ outcome: status });
    },
    disabled() {
      webhooksDisabled.inc();
    },
  };

  const retained = new Counter({ name: 'herald_retention_rows_deleted_total', help: 'Rows deleted by RETENTION_DAYS, by table', labelNames: ['table'], registers: [registry] });
  const retentionObserver = (purged: Purged) => {
    for (const [table, n] of Object.entries(purged)) retained.inc({ table }, n);
  };

  const observer: DeliveryObserver = {
    batch(provider, size, seconds) {
      latency.observe({ provider }, seconds);
      messages.inc({ provider }, size);
    },
    outcomes(written) {
      for (const o of written) {
        if (o.kind === 'sent') outcomes.inc({ outcome: 'sent' });
        else if (o.kind === 'fail') outcomes.inc({ outcome: 'failed' });
        else if (o.kind === 'prune') {
          outcomes.inc({ outcome: 'invalid_token' });
          pruned.inc();
        } else if (o.kind === 'retry') retries.inc();
      }
    },
    failover(count) {
      failovers.inc(count);
    },
    finished({ status }) {
      notifications.inc({ status });
    },
  };

  /**
   * Serves /metrics on its own port (workers have no other HTTP surface), on `host` (METRICS_HOST:
   * loopback unless a container or the operator says otherwise), and with `token` (METRICS_TOKEN)
   * only to `Authorization: Bearer <token>`. `GET /health` answers 200 without a token, for the
   * liveness and readiness probes of an orchestrator (which send no credentials): it says only that the
   * process started and its event loop answers, and the server listens only once the worker has started.
   */
  function listen(port: number, host = '127.0.0.1', token?: string): Promise<http.Server> {
    const server = http.createServer(async (req, res) => {
      if (req.url === '/health') {
        res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' }).end(JSON.stringify({ status: 'ok' }));
        return;
      }
      if (req.url !== '/metrics') {
        res.writeHead(404).end();
        return;
      }
      if (token !== undefined && !bearerMatches(req.headers.authorization, token)) {
        res.writeHead(401, { 'Content-Type': 'application/json; charset=utf-8', 'WWW-Authenticate': 'Bearer' }).end(JSON.stringify(errorBody(401, 'Missing or invalid metrics token')));
        return;
      }
      try {
        const body = await registry.metrics();
        res.writeHead(200, { 'Content-Type': registry.contentType }).end(body);
      } catch {
        res.writeHead(503).end();
      }
    });
    return new Promise((resolve) => server.listen(port, host, () => resolve(server)));
  }

  return { registry, observer, webhookObserver, retentionObserver, listen };
}
