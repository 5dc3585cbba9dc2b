import { randomUUID } from 'node:crypto';
import cors from 'cors';
import express, { type Express } from 'express';
import helmet from 'helmet';
import { pinoHttp } from 'pino-http';
import type { ApiContainer } from './container';
import { mountRoutes } from './http/define-route';
import { errorHandler, notFoundHandler } from './http/errors';
import { mountHealth } from './modules/health/health.routes';
import { apiRoutes } from './routes';

export const BODY_LIMIT = '1mb';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

export function createApp(c: ApiContainer): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', c.config.trustProxy ?? false);
  app.use(
    pinoHttp({
      logger: c.logger,
      genReqId: (req, res) => {
        const incoming = req.headers['x-request-id'];
        const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
        res.setHeader('X-Request-Id', id);
        return id;
      },
      customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'info' : 'debug'),
      autoLogging: { ignore: (req) => req.url === '/health' || req.url === '/ready' },
    }),
  );
  app.use(helmet());
  app.use(cors({ origin: c.config.corsOrigins.length ? c.config.corsOrigins : false, exposedHeaders: ['X-Request-Id', 'RateLimit', 'RateLimit-Policy', 'Retry-After'] }));
  app.use(express.json({ limit: BODY_LIMIT }));

  const router = express.Router();
  mountHealth(router, c);
  mountRoutes(router, apiRoutes(c), { authenticator: c.authenticator, gate: c.gate });
  app.use(router);
  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}
