/**
 * API benchmark: POST /push/send and POST /push/register-device requests/s and p50/p99 latency with
 * rate limits lifted (one API process), beside a bare Express JSON route in the same run.
 *
 *   pnpm bench:api [--seconds 10] [--connections 50]
 *
 * No worker runs: sends are accepted and queued (the queue is dropped with its key prefix afterwards).
 */
import { randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import Redis from 'ioredis';
import { fmt, freePort, pct, ROOT, serviceAccount, setupTenant, startNode, freshDatabase } from './lib';

const { values: args } = parseArgs({ options: { seconds: { type: 'string', default: '10' }, connections: { type: 'string', default: '50' } } });
const DURATION = Number(args.seconds);
const CONNECTIONS = Number(args.connections);

interface Result {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

async function run(title: string, opts: autocannon.Options): Promise<Result> {
  const r = await autocannon({ duration: DURATION, connections: CONNECTIONS, ...opts });
  const result = { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.timeouts, non2xx: r.non2xx };
  console.log(`${title.padEnd(34)} ${fmt(result.rps).padStart(7)} req/s   p50 ${String(result.p50).padStart(3)} ms   p99 ${String(result.p99).padStart(3)} ms${result.non2xx || result.errors ? `   (${result.non2xx} non-2xx, ${result.errors} errors)` : ''}`);
  return result;
}

async function main() {
  const databaseUrl = await freshDatabase('herald_bench_api');

  const queuePrefix = `herald-bench-api-${randomBytes(3).toString('hex')}`;
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const port = await freePort();
  const limits = Object.fromEntries(['RATE_LIMIT_SEND', 'RATE_LIMIT_SEND_BULK', 'RATE_LIMIT_REGISTER_DEVICE', 'RATE_LIMIT_AUTH', 'RATE_LIMIT_SIGNUP'].map((k) => [k, '1000000000']));
  const apiProcess = await startNode(
    join(ROOT, 'apps/api/dist/main.js'),
    [],
    {
      NODE_ENV: 'production',
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      REDIS_URL: redisUrl,
      QUEUE_PREFIX: queuePrefix,
      JWT_SECRET: randomBytes(32).toString('hex'),
      CREDENTIALS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      LOG_LEVEL: 'info',
      BCRYPT_ROUNDS: '4',
      ...limits,
    },
    /Herald API listening/,
  );
  const barePort = await freePort();
  const bare = await startNode(join(__dirname, 'bare-express.cjs'), [String(barePort)], {}, /listening/);
  const url = `http://127.0.0.1:${port}`;
  const tenant = await setupTenant(url, serviceAccount('bench-api'));
  // A device per request would grow the table without bound; the send path is the same with one.
  await fetch(`${url}/push/register-device`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': tenant.apiKey },
    body: JSON.stringify({ userId: 'user-1', deviceToken: 'token-1', provider: 'fcm', platform: 'android' }),
  });

  console.log(`Herald API benchmark: ${DURATION} s per route, ${CONNECTIONS} connections, one API process (autocannon in this process)`);
  console.log(`machine: ${cpus().length} × ${cpus()[0].model}, Node ${process.version}\n`);

  const sendBody = JSON.stringify({ userId: 'user-1', templateId: tenant.templateId, variables: { order: '#1', name: 'there' } });
  const headers = { 'content-type': 'application/json', 'x-api-key': tenant.apiKey };
  await run('warm-up', { url: `${url}/push/send`, method: 'POST', headers, body: sendBody, duration: 3 });
  const bareResult = await run('bare Express JSON route', { url: `http://127.0.0.1:${barePort}/push/send`, method: 'POST', headers, body: sendBody });
  const send = await run('POST /push/send', { url: `${url}/push/send`, method: 'POST', headers, body: sendBody });
  let n = 0;
  const register = await run('POST /push/register-device', {
    url: `${url}/push/register-device`,
    method: 'POST',
    headers,
    // Re-registration of a bounded set of tokens: the idempotent upsert every app launch makes.
    requests: [{ setupRequest: (req) => ({ ...req, body: JSON.stringify({ userId: `user-${n % 1000}`, deviceToken: `token-${n++ % 5000}`, provider: 'fcm', platform: 'android' }) }) }],
  });

  console.log(`\nPOST /push/send:            ${pct(send.rps / bareResult.rps)} of the bare route's requests/s`);
  console.log(`POST /push/register-device: ${pct(register.rps / bareResult.rps)} of the bare route's requests/s`);

  await apiProcess.stop();
  await bare.stop();
  const redis = new Redis(redisUrl);
  let cursor = '0';
  do {
    const [nextCursor, keys] = await redis.scan(cursor, 'MATCH', `${queuePrefix}*`, 'COUNT', 1000);
    cursor = nextCursor;
    if (keys.length) await redis.del(...keys);
  } while (cursor !== '0');
  redis.disconnect();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
