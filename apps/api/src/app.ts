import { createServer, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import cors from 'cors';
import express, { type Express } from 'express';
import helmet from 'helmet';
import { errorBody, reasonPhrase } from '@herald/core';
import type { ApiContainer } from './container';
import { mountDashboard } from './dashboard/serve';
import { mountRoutes } from './http/define-route';
import { errorHandler, notFoundHandler } from './http/errors';
import { jsonBody } from './http/json-body';
import { createLimits } from './http/limits';
import { createApiMetrics } from './http/metrics';
import { useRequestLog } from './http/request-log';
import { mountHealth } from './modules/health/health.routes';
import { buildOpenApiDocument } from './openapi/document';
import { mountApiDocs } from './openapi/serve';
import { apiRoutes } from './routes';

/** The largest JSON body accepted (1 MiB): 413 past it. */
export const BODY_LIMIT = 1024 * 1024;

export function createApp(c: ApiContainer): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', c.config.trustProxy ?? false);
  useRequestLog(app, c.logger);
  const metrics = c.config.metricsEnabled ? createApiMetrics(c.config.metricsToken) : undefined;
  if (metrics) app.use(metrics.middleware);
  app.use(helmet());
  app.use(cors({ origin: c.config.corsOrigins.length ? c.config.corsOrigins : false, exposedHeaders: ['X-Request-Id', 'RateLimit', 'RateLimit-Policy', 'Retry-After'] }));
  app.use(jsonBody(BODY_LIMIT));

  // On the app itself, not a nested router: one dispatch less per request.
  const routes = apiRoutes(c);
  const limits = createLimits(c.redis, c.config.queuePrefix, c.config.rateLimits);
  mountRoutes(app, routes, { authenticator: c.authenticator, gate: c.gate, projectCache: c.projectCache, limits });
  mountHealth(app, c);
  if (metrics) app.get('/metrics', metrics.handler);
  mountApiDocs(app, () => buildOpenApiDocument(routes));
  // Last: the dashboard's files and pages never stand in front of an API route.
  mountDashboard(app);
  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}

/**
 * The API's HTTP server. A client that trickles its headers or its body holds a socket and a parser
 * for as long as it likes under Node's defaults (60 s, 5 min); here for HTTP_HEADERS_TIMEOUT_MS and
 * HTTP_REQUEST_TIMEOUT_MS, checked every second, then answered 408 and closed.
 */
export function createApiServer(c: ApiContainer): Server {
  const { headersTimeoutMs, requestTimeoutMs } = c.config.http;
  const server = createServer({ headersTimeout: headersTimeoutMs, requestTimeout: requestTimeoutMs, connectionsCheckingInterval: 1000 }, createApp(c));
  server.keepAliveTimeout = 65_000; // longer than common load balancers' idle timeout
  answerClientErrors(server);
  return server;
}

/**
 * Requests Node rejects before Express sees them (headers over 16 KB → 431, malformed request lines
 * → 400) still leave with the error body of docs/api.md#errors.
 */
export function answerClientErrors(server: Server) {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || (err.code === 'ECONNRESET' && !socket.readable)) return void socket.destroy();
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const message = status === 431 ? 'Request headers are too large' : status === 408 ? 'Request timeout' : 'Malformed HTTP request';
    const body = JSON.stringify(errorBody(status, message));
    socket.end(`HTTP/1.1 ${status} ${reasonPhrase(status)}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  });
}
