import type { IRouter } from 'express';
import { errorBody } from '@herald/core';
import type { ApiContainer } from '../../container';

const withTimeout = <T>(p: Promise<T>, ms: number) =>
  Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms).unref())]);

async function probe(check: () => Promise<unknown>): Promise<'up' | 'down'> {
  try {
    await withTimeout(check(), 2000);
    return 'up';
  } catch {
    return 'down';
  }
}

/** Liveness and readiness, outside the route builder: no auth, no validation, never rate limited. */
export function mountHealth(router: IRouter, c: Pick<ApiContainer, 'db' | 'redis' | 'lifecycle'>) {
  router.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/ready', async (_req, res) => {
    // Shutting down: fail first, so that load balancers stop sending requests before the listener closes.
    if (c.lifecycle.draining) return void res.status(503).json(errorBody(503, 'Not ready: shutting down'));
    const [postgres, redis] = await Promise.all([probe(() => c.db.$queryRaw`SELECT 1`), probe(() => c.redis.ping())]);
    const checks = { postgres, redis };
    const down = Object.entries(checks)
      .filter(([, s]) => s === 'down')
      .map(([name]) => name);
    if (down.length === 0) return void res.json({ status: 'ok', checks });
    res.status(503).json({ ...errorBody(503, `Not ready: ${down.join(' and ')} unreachable`), checks });
  });
}
