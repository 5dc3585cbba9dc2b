import { STATUS_CODES } from 'node:http';
import { createServer } from 'node:net';
import { spawnApi } from './pipeline';
import { waitUntil } from './wait';

/**
 * The built API starts while Redis or Postgres is unreachable: it listens, answers /health, says in
 * /ready which dependency is down, and answers 503 to a request that needs it. It waits for Redis at
 * most a second before listening (its connection has no offline queue, so a normal start gives it a
 * moment): a client that starts it against a dead Redis is answered well within the 5 s of docs/api.md#status-codes.
 */
jest.setTimeout(60_000);

/** A loopback port that nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const lines = (output: string[]) =>
  output
    .join('')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { time: number; msg: string });

const signup = (url: string) =>
  fetch(`${url}/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: `start-${Date.now()}@example.com`, password: 'password-1', firstName: 'A', lastName: 'B' }),
  });

it('without Redis: it listens after waiting at most about a second, /health is 200, /ready and a sign-up 503', async () => {
  const api = await spawnApi({ REDIS_URL: `redis://127.0.0.1:${await closedPort()}` });
  try {
    expect((await fetch(`${api.url}/health`)).status).toBe(200);
    const ready = await fetch(`${api.url}/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ statusCode: 503, error: STATUS_CODES[503], checks: { redis: 'down', postgres: 'up' } });
    const res = await signup(api.url);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ statusCode: 503, message: expect.any(String), error: STATUS_CODES[503] });

    // The wait, on the process's own clock (module loading excluded): from the start's first line (its
    // warnings, logged just before) to the line that gives up on Redis.
    const logged = lines(api.output);
    const gaveUp = logged.findIndex((l) => l.msg.startsWith('Redis is not reachable yet'));
    expect(gaveUp).toBeGreaterThan(0);
    const waited = logged[gaveUp].time - logged[0].time;
    expect(waited).toBeGreaterThanOrEqual(900);
    expect(waited).toBeLessThan(4000);
    expect(logged.findIndex((l) => l.msg === 'Herald API listening')).toBeGreaterThan(gaveUp);
  } finally {
    await api.stop('SIGKILL');
  }
});

it('without Postgres: it listens, /health is 200, /ready and a sign-up 503; no answer names the database, no log line quotes the code', async () => {
  const api = await spawnApi({ DATABASE_URL: `postgresql://postgres@127.0.0.1:${await closedPort()}/herald` });
  try {
    expect((await fetch(`${api.url}/health`)).status).toBe(200);
    const ready = await fetch(`${api.url}/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ checks: { postgres: 'down', redis: 'up' } });
    const res = await signup(api.url);
    expect(res.status).toBe(503);
    expect(await res.text()).not.toMatch(/127\.0\.0\.1|prisma|ECONNREFUSED/i);
    // The log says why, without Prisma's code frame (the source path and lines of the failed call).
    await waitUntil(() => api.output.join('').includes('dependency unavailable'), 5000, 'the log line of the 503');
    expect(api.output.join('')).not.toMatch(/invocation in|dist\/modules/);
  } finally {
    await api.stop('SIGKILL');
  }
});
