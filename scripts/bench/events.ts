/**
 * Engagement benchmark: events ingested by one API process (`POST /push/events`, batches of 1,000 from
 * a few concurrent clients), the Postgres work each costs, and the daily series read after them.
 * Deliveries are seeded straight into a scratch database (a notification finished by an UPDATE, so
 * the trigger counts it as the worker's write would); every event then goes through the API as a
 * customer's backend would send it: received, opened, clicked and dismissed for each delivery.
 * The machine is shared and noisy: read the figures of one run as such.
 *
 *   pnpm bench:events [--events 1000000] [--batch 1000] [--concurrency 8] [--reads 20] [--database herald_bench_events] [--keep]
 *
 * Uses DATABASE_URL's server (the database is created afresh and dropped at the end unless --keep)
 * and REDIS_URL. Figures: docs/benchmarks.md#engagement-events.
 */
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { dropDatabase } from '../../packages/db/src/migrate';
import { api, cpuMs, cpuMsByName, fmt, freePort, freshDatabase, percentile, ROOT, serviceAccount, setupTenant, startNode, stealMs } from './lib';

const { values: args } = parseArgs({
  options: {
    events: { type: 'string', default: '1000000' },
    batch: { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '8' },
    reads: { type: 'string', default: '20' },
    database: { type: 'string', default: 'herald_bench_events' },
    keep: { type: 'boolean', default: false },
  },
});
const EVENTS = Number(args.events);
const BATCH = Math.min(1000, Number(args.batch));
const CONCURRENCY = Number(args.concurrency);
const READS = Number(args.reads);
const TYPES = ['received', 'opened', 'clicked', 'dismissed'] as const;
const LABEL = 'bench-label';
/** Deliveries per seeded notification: a broadcast-sized send. */
const PER_NOTIFICATION = 10_000;

/** Notifications of the bench template, each with its sent deliveries, finished as the worker finishes them. */
async function seed(databaseUrl: string, projectId: string, templateId: string, deliveries: number): Promise<string[]> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const ids: string[] = [];
    for (let done = 0; done < deliveries; done += PER_NOTIFICATION) {
      const n = Math.min(PER_NOTIFICATION, deliveries - done);
      const { rows } = await db.query<{ id: string }>(
        `INSERT INTO "Notification" ("id", "projectId", "templateId", "userIds", "variables", "options", "recipients", "devices", "pendingDeliveries", "status", "updatedAt")
         VALUES (gen_random_uuid(), $1::uuid, $2::uuid, '{}', '{}', $3::jsonb, $4, $4, $4, 'processing', now()) RETURNING "id"`,
        [projectId, templateId, JSON.stringify({ analyticsLabel: LABEL }), n],
      );
      const id = rows[0].id;
      const inserted = await db.query<{ id: string }>(
        `INSERT INTO "Delivery" ("id", "notificationId", "userId", "deviceId", "platform", "status", "createdAt", "updatedAt")
         SELECT herald_uuid_v7(), $1::uuid, 'user-' || g, gen_random_uuid(), 'android', 'sent', now() - interval '1 hour', now() - interval '1 hour'
         FROM generate_series(1, $2) g RETURNING "id"`,
        [id, n],
      );
      await db.query(`UPDATE "Notification" SET "status" = 'completed', "sent" = $2, "pendingDeliveries" = 0, "completedAt" = now() WHERE "id" = $1::uuid`, [id, n]);
      ids.push(...inserted.rows.map((r) => r.id));
    }
    await db.query('ANALYZE');
    return ids;
  } finally {
    await db.end();
  }
}

/** Postgres' own counters of the database, for the work per event. */
async function pgStats(databaseUrl: string) {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query(
      `SELECT xact_commit::bigint AS commits, blks_hit::bigint + blks_read::bigint AS blocks, blks_read::bigint AS "blocksRead", tup_inserted::bigint AS inserted,
              tup_updated::bigint AS updated, tup_fetched::bigint AS fetched, (SELECT sum(wal_bytes)::bigint FROM pg_stat_wal) AS "walBytes"
       FROM pg_stat_database WHERE datname = current_database()`,
    );
    return Object.fromEntries(Object.entries(rows[0]).map(([k, v]) => [k, Number(v)])) as Record<string, number>;
  } finally {
    await db.end();
  }
}

async function timed(fn: () => Promise<unknown>, runs: number) {
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  return `best ${ms[0].toFixed(1)} ms, median ${percentile(ms, 50).toFixed(1)} ms, p95 ${percentile(ms, 95).toFixed(1)} ms`;
}

async function main() {
  const databaseUrl = await freshDatabase(args.database!);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const apiProcess = await startNode(
    join(ROOT, 'apps/api/dist/main.js'),
    [],
    {
      NODE_ENV: 'production',
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      QUEUE_PREFIX: `herald-bench-events-${randomBytes(3).toString('hex')}`,
      JWT_SECRET: randomBytes(32).toString('hex'),
      CREDENTIALS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      LOG_LEVEL: 'info',
      BCRYPT_ROUNDS: '4',
      MAIL_TRANSPORT: 'log',
      RATE_LIMIT_EVENTS: '0',
      RATE_LIMIT_AUTH: '1000000',
      RATE_LIMIT_SIGNUP: '1000000',
    },
    /Herald API listening/,
  );
  try {
    const tenant = await setupTenant(base, serviceAccount());
    const deliveries = Math.ceil(EVENTS / TYPES.length);
    const seedStart = performance.now();
    const ids = await seed(databaseUrl, tenant.projectId, tenant.templateId, deliveries);
    console.log(`engagement benchmark: ${fmt(EVENTS)} events for ${fmt(deliveries)} deliveries of ${Math.ceil(deliveries / PER_NOTIFICATION)} notifications (seeded in ${((performance.now() - seedStart) / 1000).toFixed(1)} s); batches of ${BATCH}, ${CONCURRENCY} concurrent clients, one API process`);

    // Every type of a delivery, the deliveries in order: a backend forwards what its apps report as it comes.
    const batches: { deliveryId: string; type: string }[][] = [];
    let current: { deliveryId: string; type: string }[] = [];
    for (const type of TYPES) {
      for (const deliveryId of ids) {
        if (batches.length * BATCH + current.length >= EVENTS) break;
        current.push({ deliveryId, type });
        if (current.length === BATCH) {
          batches.push(current);
          current = [];
        }
      }
    }
    if (current.length) batches.push(current);

    const before = { stats: await pgStats(databaseUrl), pgCpu: cpuMsByName('postgres'), apiCpu: cpuMs(apiProcess.pid), steal: stealMs() };
    const start = performance.now();
    let next = 0;
    let accepted = 0;
    let refused = 0;
    const latencies: number[] = [];
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < batches.length) {
          const batch = batches[next++];
          const t = performance.now();
          const res = await api<{ accepted: unknown[]; refused: unknown[] }>(base, 'POST', '/push/events', { apiKey: tenant.apiKey, body: { events: batch }, expect: 200 });
          latencies.push(performance.now() - t);
          accepted += res.accepted.length;
          refused += res.refused.length;
        }
      }),
    );
    const seconds = (performance.now() - start) / 1000;
    // Backends report their counters to pg_stat_database about once a second.
    await new Promise((r) => setTimeout(r, 1500));
    const after = { stats: await pgStats(databaseUrl), pgCpu: cpuMsByName('postgres'), apiCpu: cpuMs(apiProcess.pid), steal: stealMs() };
    const total = accepted + refused;
    latencies.sort((a, b) => a - b);
    console.log(`ingested: ${fmt(total / seconds)} events/s (${fmt(total)} in ${seconds.toFixed(1)} s; ${fmt(accepted)} accepted, ${fmt(refused)} refused); request p50 ${fmt(percentile(latencies, 50))} ms, p99 ${fmt(percentile(latencies, 99))} ms`);
    const per = (k: string) => ((after.stats[k] - before.stats[k]) / total).toFixed(2);
    console.log(
      `per event: Postgres CPU (every postgres process of the machine) ${(((after.pgCpu - before.pgCpu) * 1000) / total).toFixed(1)} µs, API CPU ${(((after.apiCpu - before.apiCpu) * 1000) / total).toFixed(1)} µs; ` +
        `blocks touched ${per('blocks')} (read from disk ${per('blocksRead')}), rows inserted ${per('inserted')}, rows updated ${per('updated')}, WAL ${per('walBytes')} bytes, commits ${per('commits')}`,
    );
    console.log(`machine: load ${loadavg().map((l) => l.toFixed(2)).join(' ')}, steal ${fmt(after.steal - before.steal)} ms of CPU during ingestion`);

    const series = (path: string) => api<{ days: { sent: number; delivered: number; opened: number; clicked: number }[] }>(base, 'GET', path, { apiKey: tenant.apiKey, expect: 200 });
    const templatePath = `/push-templates/${tenant.templateId}/engagement`;
    const labelPath = `/push/analytics-labels/${LABEL}/engagement`;
    const today = (await series(templatePath)).days.at(-1)!;
    console.log(`template series, today: sent ${fmt(today.sent)}, delivered ${fmt(today.delivered)}, opened ${fmt(today.opened)}, clicked ${fmt(today.clicked)}`);
    console.log(`template series read (HTTP, after ${fmt(accepted)} events): ${await timed(() => series(templatePath), READS)}`);
    console.log(`label series read (HTTP): ${await timed(() => series(labelPath), READS)}`);
  } finally {
    await apiProcess.stop();
    if (!args.keep) await dropDatabase(databaseUrl);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
