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

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    c.logger.info({ signal }, 'shutting down: finishing in-flight requests');
    const force = setTimeout(() => process.exit(1), 25_000).unref();
    server.close(async () => {
      await c.close().catch(() => undefined);
      clearTimeout(force);
      process.exit(0);
    });
    server.closeIdleConnections();
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

void main();
