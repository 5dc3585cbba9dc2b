import type { RequestHandler } from 'express';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { AppError, bearerMatches } from '@herald/core';

/**
 * Prometheus metrics of one API instance: request count and latency by route pattern (never the raw
 * URL, which would carry ids), method and status, plus the process defaults.
 */
export interface ApiMetrics {
  registry: Registry;
  middleware: RequestHandler;
  handler: RequestHandler;
}

export const METRICS_UNAUTHORIZED = 'Missing or invalid metrics token';

/** `token` (METRICS_TOKEN): when set, `/metrics` answers only `Authorization: Bearer <token>` (else 401). */
export function createApiMetrics(token?: string): ApiMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'herald_api_' });
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({ name: 'herald_http_requests_total', help: 'HTTP requests answered', labelNames, registers: [registry] });
  const duration = new Histogram({
    name: 'herald_http_request_duration_seconds',
    help: 'HTTP request latency',
    labelNames,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });

  const middleware: RequestHandler = (req, res, next) => {
    const end = duration.startTimer();
    res.once('finish', () => {
      const route = req.route?.path ? `${req.baseUrl}${req.route.path}` : 'unmatched';
      const labels = { method: req.method, route, status: String(res.statusCode) };
      requests.inc(labels);
      end(labels);
    });
    next();
  };

  const handler: RequestHandler = async (req, res) => {
    if (token !== undefined && !bearerMatches(req.headers.authorization, token)) throw AppError.unauthorized(METRICS_UNAUTHORIZED);
    res.set('Content-Type', registry.contentType).send(await registry.metrics());
  };

  return { registry, middleware, handler };
}
