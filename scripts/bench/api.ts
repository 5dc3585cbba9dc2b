/**
 * API benchmark: POST /push/send and POST /push/register-device requests/s and p50/p99 latency with
 * rate limits lifted (one API process), beside a bare Express JSON route and a bare node:http server
 * (the issue's ceiling: read the JSON body, answer) in the same run.
 *
 *   pnpm bench:api [--seconds 10] [--rounds 3] [--connections 50] [--profile-api DIR]
 *                  [--only send | --only paced [--rates 500,800,1100]]
 *
 * A shared 2-core VM drifts by tens of percent from minute to minute, so the routes are measured in
 * interleaved rounds (bare, send, register, bare, …) and each figure is the median of its rounds.
 * Then POST /push/send is paced at 20, 30 and 40 % of the bare route's median rate, in rounds as
 * well, to read its latency there: at full load, latency only
 * measures the queue in front of a saturated process (50 connections ÷ requests/s). Each line shows
 * where the CPU went, including the time the hypervisor took from this VM.
 *
 * No worker runs: sends are accepted and queued (the queue is dropped with its key prefix afterwards).
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { cpuMs, cpuMsByName, fmt, freePort, pct, percentile, ROOT, serviceAccount, setupTenant, startNode, freshDatabase, stealMs } from './lib';
import { dropDatabase } from '../../packages/db/src/migrate';
import { deleteKeysWithPrefix } from '../../test/redis-keys';

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
    /** Directory for a V8 CPU profile of the API process (node --cpu-prof), written when it stops. */
    'profile-api': { type: 'string' },
    /** `send`: only the warm-up and POST /push/send at full load; `paced`: only the paced runs (for profiling). */
    only: { type: 'string' },
    /** With --only paced: the rates to pace POST /push/send at, comma-separated req/s. */
    rates: { type: 'string', default: '500,800,1100' },
  },
});
const DURATION = Number(args.seconds);
const ROUNDS = Number(args.rounds);
/** The issue's target: POST /push/send at ≥ 40 % of the bare route, p99 < 50 ms at that rate. */
const TARGET_SHARE = 0.4;
const CONNECTIONS = Number(args.connections);

interface Result {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** More of the latency distribution (paced runs). */
  tail?: string;
}

/** Share of one core each process used while `measure` ran: where the machine's two cores went. */
async function cpuDuring<T>(serverPid: number, measure: () => Promise<T>): Promise<{ value: T; cpu: string }> {
  const sample = () => ({ at: performance.now(), server: cpuMs(serverPid), self: process.cpuUsage(), postgres: cpuMsByName('postgres'), redis: cpuMsByName('redis-server'), steal: stealMs() });
  const before = sample();
  const value = await measure();
  const after = sample();
  const wall = after.at - before.at;
  const share = (ms: number) => `${Math.round((100 * ms) / wall)} %`;
  const self = (after.self.user + after.self.system - before.self.user - before.self.system) / 1000;
  return {
    value,
    cpu: `server ${share(after.server - before.server)}, load generator ${share(self)}, postgres ${share(after.postgres - before.postgres)}, redis ${share(after.redis - before.redis)}, stolen by the host ${share(after.steal - before.steal)}`,
  };
}

const line = (title: string, r: Result, cpu: string) =>
  console.log(
    `${title.padEnd(36)} ${fmt(r.rps).padStart(7)} req/s   p50 ${String(r.p50).padStart(3)} ms   p99 ${String(r.p99).padStart(3)} ms   cpu: ${cpu}${r.non2xx || r.errors ? `   (${r.non2xx} non-2xx, ${r.errors} errors)` : ''}${r.tail ? `\n${''.padEnd(38)}${r.tail}` : ''}`,
  );

async function run(title: string, serverPid: number, opts: autocannon.Options): Promise<Result> {
  const { value: r, cpu } = await cpuDuring(serverPid, () => autocannon({ duration: DURATION, connections: CONNECTIONS, ...opts }));
  const result = { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.timeouts, non2xx: r.non2xx };
  line(title, result, cpu);
  return result;
}

/**
 * An open-loop load at a steady `rate`: one request every 1/rate s whatever the answers (autocannon's
 * rate option fires each connection's quota at the start of every second, which measures bursts).
 * Latency counts from when a request was due, so a stall is not hidden (no coordinated omission).
 */
async function pacedRun(title: string, serverPid: number, target: string, headers: Record<string, string>, body: string, rate: number): Promise<Result> {
  const { value, cpu } = await cpuDuring(serverPid, () => paced(target, headers, body, rate));
  line(title, value, cpu);
  return value;
}

async function paced(target: string, headers: Record<string, string>, body: string, rate: number): Promise<Result> {
  // As many connections as the closed-loop runs: a backend's pool; a request waits for a free one.
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const latencies: number[] = [];
  let non2xx = 0;
  let errors = 0;
  const send = (due: number) =>
    new Promise<void>((resolve) => {
      const req = http.request(target, { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, (res) => {
        res.resume();
        res.on('end', () => {
          latencies.push(performance.now() - due);
          if (res.statusCode! < 200 || res.statusCode! >= 300) non2xx++;
          resolve();
        });
      });
      req.on('error', () => {
        errors++;
        resolve();
      });
      req.end(body);
    });
  const started = performance.now();
  const total = Math.round(rate * DURATION);
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    inFlight.push(send(due));
  }
  await Promise.all(inFlight);
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const tail = `p90 ${percentile(latencies, 90).toFixed(1)} ms, p95 ${percentile(latencies, 95).toFixed(1)} ms, p99.9 ${percentile(latencies, 99.9).toFixed(1)} ms, max ${latencies.at(-1)!.toFixed(1)} ms`;
  return { rps: latencies.length / elapsed, p50: Math.round(percentile(latencies, 50)), p99: Math.round(percentile(latencies, 99)), errors, non2xx, tail };
}

async function main() {
  const databaseUrl = await freshDatabase('herald_bench_api');

  const queuePrefix = `herald-bench-api-${randomBytes(3).toString('hex')}`;
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const port = await freePort();
  const limits = Object.fromEntries(['RATE_LIMIT_SEND', 'RATE_LIMIT_SEND_BULK', 'RATE_LIMIT_PROJECT_SEND', 'RATE_LIMIT_REGISTER_DEVICE', 'RATE_LIMIT_AUTH', 'RATE_LIMIT_SIGNUP'].map((k) => [k, '1000000000']));
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
      // Production needs a mail server or this explicit choice; the benchmark sends no mail.
      MAIL_TRANSPORT: 'log',
      ...limits,
    },
    /Herald API listening/,
    args['profile-api'] ? ['--cpu-prof', `--cpu-prof-dir=${args['profile-api']}`] : [],
  );
  const barePort = await freePort();
  const bare = await startNode(join(__dirname, 'bare-express.cjs'), [String(barePort)], {}, /listening/);
  const bareHttpPort = await freePort();
  const bareHttp = await startNode(join(__dirname, 'bare-http.cjs'), [String(bareHttpPort)], {}, /listening/);
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
  try {
    await run('warm-up', apiProcess.pid, { url: `${url}/push/send`, method: 'POST', headers, body: sendBody, duration: 3 });
    if (args.only === 'send') {
      await run('POST /push/send', apiProcess.pid, { url: `${url}/push/send`, method: 'POST', headers, body: sendBody });
    } else if (args.only === 'paced') {
      for (const rate of args.rates.split(',').map(Number)) {
        await pacedRun(`POST /push/send paced at ${fmt(rate)} req/s`, apiProcess.pid, `${url}/push/send`, headers, sendBody, rate);
      }
    } else {
      await measureAll(url, { port: barePort, pid: bare.pid }, { port: bareHttpPort, pid: bareHttp.pid }, apiProcess.pid, headers, sendBody);
    }
  } finally {
    await apiProcess.stop();
    await bare.stop();
    await bareHttp.stop();
    await deleteKeysWithPrefix(redisUrl, queuePrefix);
    await dropDatabase(databaseUrl);
  }
}

/** The interleaved rounds of every route, then POST /push/send paced, with the medians. */
async function measureAll(url: string, bareExpress: { port: number; pid: number }, bareHttp: { port: number; pid: number }, apiPid: number, headers: Record<string, string>, sendBody: string) {
  let n = 0;
  const routes = {
    bareHttp: { title: 'bare node:http server', pid: bareHttp.pid, opts: { url: `http://127.0.0.1:${bareHttp.port}/push/send`, method: 'POST', headers, body: sendBody } },
    bare: { title: 'bare Express JSON route', pid: bareExpress.pid, opts: { url: `http://127.0.0.1:${bareExpress.port}/push/send`, method: 'POST', headers, body: sendBody } },
    send: { title: 'POST /push/send', pid: apiPid, opts: { url: `${url}/push/send`, method: 'POST', headers, body: sendBody } },
    register: {
      title: 'POST /push/register-device',
      pid: apiPid,
      opts: {
        url: `${url}/push/register-device`,
        method: 'POST',
        headers,
        // Re-registration of a bounded set of tokens: the idempotent upsert every app launch makes.
        requests: [{ setupRequest: (req: autocannon.Request) => ({ ...req, body: JSON.stringify({ userId: `user-${n % 1000}`, deviceToken: `token-${n++ % 5000}`, provider: 'fcm', platform: 'android' }) }) }],
      },
    },
  } satisfies Record<string, { title: string; pid: number; opts: autocannon.Options }>;
  const results: Record<keyof typeof routes, Result[]> = { bareHttp: [], bare: [], send: [], register: [] };
  for (let round = 1; round <= ROUNDS; round++) {
    console.log(`round ${round}/${ROUNDS}`);
    for (const [name, route] of Object.entries(routes) as [keyof typeof routes, (typeof routes)[keyof typeof routes]][]) {
      results[name].push(await run(`  ${route.title}`, route.pid, route.opts as autocannon.Options));
    }
  }
  const median = (rs: Result[]) => {
    const pick = (f: (r: Result) => number) => rs.map(f).sort((a, b) => a - b)[Math.floor(rs.length / 2)];
    return { rps: pick((r) => r.rps), p50: pick((r) => r.p50), p99: pick((r) => r.p99), non2xx: rs.reduce((n, r) => n + r.non2xx, 0) };
  };
  const [bareHttpResult, bareResult, send, register] = [median(results.bareHttp), median(results.bare), median(results.send), median(results.register)];
  // The target rate, and lower ones: where the latency target holds on this machine. In rounds too:
  // a paced run is what the host's hiccups disturb most.
  const pacedShares = [0.2, 0.3, TARGET_SHARE];
  const pacedResults: Result[][] = pacedShares.map(() => []);
  for (let round = 1; round <= ROUNDS; round++) {
    console.log(`paced round ${round}/${ROUNDS}`);
    for (const [i, share] of pacedShares.entries()) {
      const rate = Math.round(bareResult.rps * share);
      pacedResults[i].push(await pacedRun(`  POST /push/send paced at ${fmt(rate)} req/s`, apiPid, `${url}/push/send`, headers, sendBody, rate));
    }
  }
  const paced = pacedResults.map(median);

  console.log(`\nmedians of ${ROUNDS} rounds (each column on its own):`);
  console.log(`  bare node:http server       ${fmt(bareHttpResult.rps).padStart(7)} req/s   p50 ${bareHttpResult.p50} ms   p99 ${bareHttpResult.p99} ms`);
  console.log(`  bare Express JSON route     ${fmt(bareResult.rps).padStart(7)} req/s   p50 ${bareResult.p50} ms   p99 ${bareResult.p99} ms`);
  console.log(`  POST /push/send             ${fmt(send.rps).padStart(7)} req/s   p50 ${send.p50} ms   p99 ${send.p99} ms   ${pct(send.rps / bareResult.rps)} of the bare route, ${pct(send.rps / bareHttpResult.rps)} of bare node:http (target ${pct(TARGET_SHARE)})`);
  console.log(`  POST /push/register-device  ${fmt(register.rps).padStart(7)} req/s   p50 ${register.p50} ms   p99 ${register.p99} ms   ${pct(register.rps / bareResult.rps)} of the bare route`);
  for (const [i, share] of pacedShares.entries()) {
    const r = paced[i];
    console.log(`  POST /push/send paced at ${pct(share)} of the bare rate (${fmt(r.rps)} req/s served): p50 ${r.p50} ms, p99 ${r.p99} ms${r.non2xx ? ` (${r.non2xx} non-2xx)` : ''}`);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
