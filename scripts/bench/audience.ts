/**
 * Audience benchmark: counts and keyset pages over N devices of one project (a million by default),
 * seeded straight into a scratch database with `generate_series`, beside a fifth as many devices of
 * four other projects (so that project scoping is part of every plan). Every statement is the one the
 * API and the worker run, from packages/db's compiler; for each the run prints the plan Postgres
 * chose (EXPLAIN ANALYZE, BUFFERS) and the time of the statement itself, best and median of --runs.
 * The machine is shared and noisy: read the plans and the relative figures of one run.
 *
 *   pnpm bench:audience [--devices 1000000] [--runs 3] [--page 1000] [--database herald_bench_audience] [--keep] [--reuse] [--part counts|pages] [--plans full|short]
 *
 * Uses DATABASE_URL's server: the database is created afresh (migrated like production) and dropped
 * at the end unless --keep; --reuse measures again the database a --keep run left (no seeding). Figures and the choices they led to: docs/decisions/device-attributes-storage.md.
 */
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { Client, type QueryConfig } from 'pg';
import { appVersionKey, type AudienceFilter } from '../../packages/schemas/src';
import { audienceCountStatement, audiencePageStatement, audienceSelectStatement } from '../../packages/db/src/audience-sql';
import { dropDatabase } from '../../packages/db/src/migrate';
import { fmt, freshDatabase } from './lib';

const { values: args } = parseArgs({
  options: {
    devices: { type: 'string', default: '1000000' },
    runs: { type: 'string', default: '3' },
    page: { type: 'string', default: '1000' },
    database: { type: 'string', default: 'herald_bench_audience' },
    keep: { type: 'boolean', default: false },
    reuse: { type: 'boolean', default: false },
    /** `counts`, `pages` or both (default). */
    part: { type: 'string', default: 'all' },
    plans: { type: 'string', default: 'full' },
  },
});
const DEVICES = Number(args.devices);
const RUNS = Math.max(1, Number(args.runs));
const PAGE = Number(args.page);
const OTHERS = Math.round(DEVICES / 5);
const SEED_CHUNK = 100_000;

const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Tokyo', 'Asia/Kolkata', 'Europe/London', 'America/Los_Angeles', 'Australia/Sydney'];
const LOCALES = ['en-US', 'de-DE', 'fr-FR', 'en-GB', 'ja-JP', 'hi-IN'];
/** 8.0.0 … 12.15.20: five majors, so `appVersion gte 12.5` holds about a seventh. */
const VERSIONS = Array.from({ length: 5 * 16 * 21 }, (_, i) => `${8 + Math.floor(i / 336)}.${Math.floor(i / 21) % 16}.${i % 21}`);

/**
 * One project's devices, rows `from`..`to` of the series. Each device: ~2 per user; platform 55 %
 * android, 40 % ios, 5 % web; tag `plan` pro 10 %, team 20 %, free 60 %, none 10 %; `score` (a
 * number) on half, `beta` on half (true on a tenth of those); last seen within the past 90 days
 * (uniformly: a third within 30 days), created up to a year before; a token of FCM's length (~150
 * characters); a zone, a locale and a version from the lists above.
 */
const SEED = `
  INSERT INTO "Device" ("id", "projectId", "userId", "deviceToken", "provider", "platform", "createdAt", "updatedAt", "lastSeenAt", "tags", "timezone", "locale", "appVersion", "appVersionKey")
  SELECT gen_random_uuid(), $1::uuid, 'user-' || (g / 2), 'bench:' || encode(sha256(($1::text || g)::bytea), 'hex') || encode(sha256(g::text::bytea), 'hex') || '-' || g, 'fcm',
    CASE WHEN r1 < 0.55 THEN 'android' WHEN r1 < 0.95 THEN 'ios' ELSE 'web' END,
    seen - random() * interval '365 days', now(), seen,
    jsonb_strip_nulls(jsonb_build_object(
      'plan', CASE WHEN r2 < 0.10 THEN 'pro' WHEN r2 < 0.30 THEN 'team' WHEN r2 < 0.90 THEN 'free' END,
      'score', CASE WHEN r3 < 0.5 THEN floor(r3 * 2000)::int END,
      'beta', CASE WHEN r3 < 0.05 THEN true WHEN r3 < 0.5 THEN false END,
      'country', ($4::text[])[1 + g % 10])),
    ($5::text[])[1 + g % ${ZONES.length}], ($6::text[])[1 + g % ${LOCALES.length}], v."version", v."key"
  FROM (SELECT g, random() AS r1, random() AS r2, random() AS r3, now() - random() * interval '90 days' AS seen, floor(random() * ${VERSIONS.length})::int AS vi
        FROM generate_series($2::int, $3::int) g) s
  JOIN bench_versions v ON v."i" = s.vi`;

async function seed(client: Client, projectId: string, count: number, label: string) {
  const started = performance.now();
  for (let from = 1; from <= count; from += SEED_CHUNK) {
    const to = Math.min(count, from + SEED_CHUNK - 1);
    await client.query(SEED, [projectId, from, to, ['us', 'de', 'fr', 'gb', 'in', 'br', 'jp', 'es', 'it', 'nl'], ZONES, LOCALES]);
    process.stdout.write(`\r  seeding ${label}: ${fmt(to)} / ${fmt(count)}`);
  }
  process.stdout.write(`  (${((performance.now() - started) / 1000).toFixed(1)} s)\n`);
}

async function timed(client: Client, statement: QueryConfig) {
  const times: number[] = [];
  let rows: Record<string, unknown>[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    rows = (await client.query(statement)).rows;
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { best: times[0], median: times[Math.floor(times.length / 2)], rows };
}

/** EXPLAIN ANALYZE of a statement: Postgres runs it once more and reports what each step read and cost. */
async function plan(client: Client, statement: QueryConfig): Promise<string> {
  const { rows } = await client.query<{ 'QUERY PLAN': string }>({ ...statement, text: `EXPLAIN (ANALYZE, BUFFERS) ${statement.text}` });
  const lines = rows.map((r) => r['QUERY PLAN']);
  const shown = args.plans === 'short' ? lines.filter((l) => /Scan|Aggregate|Sort|Limit|Join|Rows Removed|Heap Blocks|Execution Time/.test(l)) : lines;
  return shown.map((l) => `    ${l}`).join('\n');
}

const ms = (n: number) => `${n.toFixed(n < 10 ? 1 : 0)} ms`;

async function main() {
  const url = args.reuse ? databaseUrl(String(args.database)) : await freshDatabase(String(args.database));
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const project = args.reuse ? await largestProject(client) : await seedAll(client);
    const { rows: counted } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM "Device" WHERE "projectId" = $1', [project]);
    console.log(`audience benchmark: ${fmt(counted[0].n)} devices in the project; ${RUNS} runs per statement; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    const { rows: sizes } = await client.query<{ name: string; size: string }>(
      `SELECT c.relname AS "name", pg_size_pretty(pg_relation_size(c.oid)) AS "size" FROM pg_class c WHERE c.relname = 'Device' OR c.oid IN (SELECT indexrelid FROM pg_index WHERE indrelid = '"Device"'::regclass) ORDER BY c.relname`,
    );
    console.log(`  sizes: ${sizes.map((s) => `${s.name} ${s.size}`).join(', ')}`);
    await measure(client, project);
  } finally {
    await client.end();
    if (!args.keep && !args.reuse) await dropDatabase(url);
  }
}

function databaseUrl(name: string) {
  const url = new URL(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres');
  url.pathname = `/${name}`;
  return url.toString();
}

async function largestProject(client: Client): Promise<string> {
  const { rows } = await client.query<{ projectId: string }>('SELECT "projectId" FROM "Device" GROUP BY "projectId" ORDER BY count(*) DESC LIMIT 1');
  if (!rows.length) throw new Error(`--reuse: no devices in ${String(args.database)}; run with --keep first`);
  return rows[0].projectId;
}

/** Seeds the project and four others; answers the project's id. */
async function seedAll(client: Client): Promise<string> {
  console.log(`seeding ${fmt(DEVICES)} devices in one project, ${fmt(OTHERS)} in four others`);
  const owner = randomUUID();
  const project = randomUUID();
  const others = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  await client.query(`INSERT INTO "User" ("id", "email", "passwordHash", "firstName", "lastName", "updatedAt") VALUES ($1, $2, 'x', 'Bench', 'Mark', now())`, [owner, `${owner}@bench.test`]);
  for (const id of [project, ...others]) await client.query(`INSERT INTO "Project" ("id", "name", "ownerId", "updatedAt") VALUES ($1, 'bench', $2, now())`, [id, owner]);
  await client.query('CREATE TEMP TABLE bench_versions ("i" int PRIMARY KEY, "version" text, "key" text)');
  await client.query(`INSERT INTO bench_versions SELECT * FROM unnest($1::int[], $2::text[], $3::text[])`, [VERSIONS.map((_, i) => i), VERSIONS, VERSIONS.map((v) => appVersionKey(v))]);

  await seed(client, project, DEVICES, 'the project');
  for (const [i, other] of others.entries()) await seed(client, other, Math.round(OTHERS / 4), `other project ${i + 1}`);
  const vacuumStarted = performance.now();
  await client.query('VACUUM ANALYZE "Device"');
  console.log(`  VACUUM ANALYZE: ${ms(performance.now() - vacuumStarted)}`);
  return project;
}

async function measure(client: Client, project: string) {
  const c = (field: string, op: string, value?: unknown) => ({ field, op, ...(value === undefined ? {} : { value }) }) as AudienceFilter;
  const counts: [string, AudienceFilter | undefined][] = [
    ['all devices', undefined],
    ['tags.plan eq "pro" (10 %)', c('tags.plan', 'eq', 'pro')],
    ['lastSeenAt gte {within: 30d} (33 %)', c('lastSeenAt', 'gte', { within: '30d' })],
    ['lastSeenAt gte {within: 3d} (3 %)', c('lastSeenAt', 'gte', { within: '3d' })],
    ['appVersion gte "12.5" (14 %)', c('appVersion', 'gte', '12.5')],
    ['ios and tags.plan eq "pro" and lastSeenAt within 30d (1.3 %)', { and: [c('platform', 'eq', 'ios'), c('tags.plan', 'eq', 'pro'), c('lastSeenAt', 'gte', { within: '30d' })] }],
    ['tags.plan in ["pro", "team"] (30 %)', c('tags.plan', 'in', ['pro', 'team'])],
    ['tags.beta exists (50 %)', c('tags.beta', 'exists')],
    ['tags.score gt 900 (5 %, a range on a tag: no index)', c('tags.score', 'gt', 900)],
  ];
  if (args.part !== 'pages') console.log('\n== counts: POST /push/audience/count');
  for (const [label, filter] of args.part === 'pages' ? [] : counts) {
    const statement = audienceCountStatement(project, filter);
    const { best, median, rows } = await timed(client, statement);
    const r = rows[0] as { devices: number; users: number; android: number; ios: number; web: number };
    console.log(`\n${label}: best ${ms(best)}, median ${ms(median)}; ${fmt(r.devices)} devices, ${fmt(r.users)} users (android ${fmt(r.android)}, ios ${fmt(r.ios)}, web ${fmt(r.web)})`);
    console.log(await plan(client, statement));
  }

  if (args.part === 'counts') return;
  console.log(`\n== keyset pages of ${fmt(PAGE)}: the fan-out's statement`);
  const columns = ['id', 'userId', 'platform', 'provider', 'deviceToken'] as const;
  for (const [label, filter] of [['all devices', undefined], ['tags.plan eq "pro" (10 %)', c('tags.plan', 'eq', 'pro')]] as const) {
    const first = audiencePageStatement(project, filter, { limit: PAGE, columns });
    const middle = audiencePageStatement(project, filter, { limit: PAGE, columns, after: '80000000-0000-0000-0000-000000000000' });
    const a = await timed(client, first);
    const b = await timed(client, middle);
    console.log(`\n${label}: first page best ${ms(a.best)}, a page from the middle best ${ms(b.best)}`);
    console.log(await plan(client, middle));
    // The whole audience, page after page, as a fan-out streams it.
    const started = performance.now();
    let after: string | undefined;
    let pages = 0;
    let rows = 0;
    let slowest = 0;
    for (;;) {
      const pageStarted = performance.now();
      const page = await client.query<{ id: string }>(audiencePageStatement(project, filter, { limit: PAGE, columns, after }));
      slowest = Math.max(slowest, performance.now() - pageStarted);
      if (page.rows.length === 0) break;
      pages++;
      rows += page.rows.length;
      after = page.rows[page.rows.length - 1].id;
    }
    const total = performance.now() - started;
    console.log(`  streamed: ${fmt(rows)} devices in ${fmt(pages)} pages, ${ms(total)} (${ms(total / Math.max(1, pages))} a page on average, slowest ${ms(slowest)})`);

    // The other way: the audience's ids taken once (one pass over the matches), then paged from there.
    const snapshot = audienceSelectStatement(project, filter, { columns: ['id'] });
    await client.query('DROP TABLE IF EXISTS bench_snapshot');
    const snapStarted = performance.now();
    await client.query({ ...snapshot, text: `CREATE TEMP TABLE bench_snapshot AS ${snapshot.text}` });
    await client.query('ALTER TABLE bench_snapshot ADD PRIMARY KEY ("id")');
    await client.query('ANALYZE bench_snapshot');
    const taken = performance.now() - snapStarted;
    let last = '00000000-0000-0000-0000-000000000000';
    let snapPages = 0;
    const pagedStarted = performance.now();
    for (;;) {
      const page = await client.query<{ id: string }>(
        `SELECT d."id", d."userId", d."platform", d."provider", d."deviceToken" FROM bench_snapshot s JOIN "Device" d ON d."id" = s."id" WHERE s."id" > $1 ORDER BY s."id" LIMIT $2`,
        [last, PAGE],
      );
      if (page.rows.length === 0) break;
      snapPages++;
      last = page.rows[page.rows.length - 1].id;
    }
    const paged = performance.now() - pagedStarted;
    console.log(`  snapshot: the ids in one statement ${ms(taken)}, then ${fmt(snapPages)} pages of devices in ${ms(paged)} (${ms(paged / Math.max(1, snapPages))} a page)`);
    console.log(await plan(client, snapshot));
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
