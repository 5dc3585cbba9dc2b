import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Queue } from 'bullmq';
import type Redis from 'ioredis';
import { NOTIFICATIONS_QUEUE } from '@herald/core';
import { runKeyPrefix, runRedis } from '@herald/testing';
import { createWorkerMetrics } from './metrics';

/**
 * Hardening: the worker's metrics listened on 0.0.0.0 without authentication. They now bind to
 * METRICS_HOST (loopback by default; the image and docker-compose say 0.0.0.0) and, with
 * METRICS_TOKEN, answer only its bearer.
 */
let connection: Redis;
let queue: Queue;
const servers: Server[] = [];

beforeAll(() => {
  connection = runRedis({ maxRetriesPerRequest: null });
  queue = new Queue(NOTIFICATIONS_QUEUE, { connection, prefix: runKeyPrefix('metrics') });
});
afterAll(async () => {
  for (const s of servers) s.close();
  await queue.close();
  connection.disconnect();
});

async function listen(host?: string, token?: string) {
  const server = await createWorkerMetrics(() => queue, () => queue).listen(0, host, token);
  servers.push(server);
  const { address, port } = server.address() as AddressInfo;
  return { address, url: `http://127.0.0.1:${port}/metrics` };
}

it('binds to loopback by default, or to the host it is given', async () => {
  expect((await listen()).address).toBe('127.0.0.1');
  expect((await listen('0.0.0.0')).address).toBe('0.0.0.0');
});

it('with a token, answers 401 (the usual error body) without it or with another, and the metrics with it', async () => {
  const { url } = await listen(undefined, 'scrape-token-123');
  for (const headers of [{}, { authorization: 'Bearer wrong' }, { authorization: 'scrape-token-123' }] as Record<string, string>[]) {
    const res = await fetch(url, { headers });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ statusCode: 401, message: 'Missing or invalid metrics token', error: 'Unauthorized' });
  }
  const ok = await fetch(url, { headers: { authorization: 'Bearer scrape-token-123' } });
  expect(ok.status).toBe(200);
  expect(await ok.text()).toContain('herald_queue_jobs');
});

it('without a token, serves the metrics openly (for a private network)', async () => {
  const res = await fetch((await listen()).url);
  expect(res.status).toBe(200);
});

it('answers GET /health with 200 and no token, for probes, while /metrics still asks for it; other paths are 404', async () => {
  const { url } = await listen(undefined, 'scrape-token-123');
  const health = await fetch(url.replace(/\/metrics$/, '/health'));
  expect(health.status).toBe(200);
  expect(health.headers.get('content-type')).toMatch(/^application\/json/);
  expect(await health.json()).toEqual({ status: 'ok' });
  expect((await fetch(url)).status).toBe(401);
  expect((await fetch(url.replace(/\/metrics$/, '/ready'))).status).toBe(404);
});
