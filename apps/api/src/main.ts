import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadApiConfig, loadOrExit } from '@herald/config';
import { createApiServer } from './app';
import { createContainer } from './container';
import { waitForRedis } from './redis';

async function main() {
  const config = loadOrExit(loadApiConfig);
  const c = createContainer(config);
  for (const warning of config.warnings) c.logger.warn(warning);
  if (config.mail.transport === 'log') {
    c.logger.warn(
      config.mail.logLinks
        ? 'e-mails are written to this log, links whole: it is this instance\'s mailbox (set SMTP_URL to send them)'
        : 'e-mails are written to this log, without their links\' tokens, and reach no one (set SMTP_URL to send them)',
    );
  }
  // Rate limiters and queues need Redis, whose connection has no offline queue: give it a moment to
  // connect, so that the first requests of a normal start find it ready. If it is down, start anyway
  // (requests needing it answer 503 until it returns), soon enough to answer within 5 s (docs/api.md#status-codes).
  if (!(await waitForRedis(c.redis, 1000))) c.logger.error('Redis is not reachable yet; requests needing it answer 503');

  const server = createApiServer(c).listen(config.port, () => c.logger.info({ port: (server.address() as AddressInfo).port }, 'Herald API listening'));

  // While draining, every response closes its connection: a client's next request opens a new one,
  // which a load balancer sends to another instance.
  server.prependListener('request', (_req, res: ServerResponse) => {
    if (c.lifecycle.draining) res.setHeader('Connection', 'close');
  });
  const { readinessDelayMs, graceMs } = config.shutdown;
  const shutdown = (signal: string) => {
    if (c.lifecycle.draining) return;
    // 1. Readiness fails (requests are still served), 2. the listener closes and the accepted requests
    // finish, 3. connections close and the process exits 0 — or 1 if requests outlive the grace period.
    c.lifecycle.draining = true;
    c.logger.info({ signal, readinessDelayMs, graceMs }, 'shutting down: readiness fails, then in-flight requests finish');
    const force = setTimeout(() => {
      c.logger.error('requests still running at the end of the shutdown grace period; exiting');
      process.exit(1);
    }, readinessDelayMs + graceMs).unref();
    setTimeout(() => {
      c.logger.info('shutting down: no longer accepting connections; finishing in-flight requests');
      server.close(async () => {
        await c.close().catch(() => undefined);
        clearTimeout(force);
        process.exit(0);
      });
      server.closeIdleConnections();
    }, readinessDelayMs).unref();
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

void main();
