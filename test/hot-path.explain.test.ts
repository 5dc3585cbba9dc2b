import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { plannerSettings, type DbOptions } from '@herald/db';
import { OVERVIEW_SQL } from '../apps/api/src/modules/overview/overview.sql';
import { NOTIFICATION_READ_SQL } from '../apps/api/src/modules/notifications/notifications.sql';
import { DELIVERY_SQL } from '../apps/worker/src/delivery/repository';
import { arrayLiteral, WORKER_PLANNER } from '../apps/worker/src/delivery/sql';
import { LOST_WORK_SQL } from '../apps/worker/src/maintenance/lost-work';
import { RETENTION_SQL } from '../apps/worker/src/maintenance/retention';
import { privateDatabase } from './pipeline';
import { relationsOf, scansOf, type PlannedStatement } from './explain/plans';

/**
 * Every statement of the delivery path and of the reads beside it plans through an index, whatever
 * the statistics say: planned right after a large bulk was written over statistics taken while the
 * tables were small (what autovacuum has not caught up with), and again once they are analysed. A
 * sequential scan of Delivery, Notification or Device fails the test: at millions of rows it is
 * what turns a 10 ms statement into a second. The statements are the ones the code runs (their
 * texts are exported where they are used), planned as their pools plan them.
 */
const db = { url: '', drop: async () => undefined } as { url: string; drop(): Promise<void> };
let c: Client;

const NOTIFICATIONS = 2_000;
const USERS_PER_NOTIFICATION = 25;
const USERS = 10_000;
const project = randomUUID();
const other = randomUUID();

beforeAll(async () => {
  Object.assign(db, await privateDatabase());
  c = new Client({ connectionString: db.url });
  await c.connect();
  // Statistics move only when this test says so.
  for (const t of ['Delivery', 'Notification', 'Device']) await c.query(`ALTER TABLE "${t}" SET (autovacuum_enabled = false)`);
  const owner = randomUUID();
  await c.query(`INSERT INTO "User" ("id", "email", "passwordHash", "firstName", "lastName", "updatedAt") VALUES ($1, $2, 'x', 'a', 'b', now())`, [owner, `${owner}@example.test`]);
  await c.query(`INSERT INTO "Project" ("id", "name", "ownerId", "updatedAt") VALUES ($1, 'big', $3, now()), ($2, 'small', $3, now())`, [project, other, owner]);
  // A few rows, analysed: the statistics a young database has.
  await fill(other, 20, 50, 1);
  await c.query('ANALYZE "Delivery"; ANALYZE "Notification"; ANALYZE "Device"');
  // Then the bulk: 20,000 devices, 2,000 notifications of 50 deliveries each, not analysed.
  await fill(project, USERS, NOTIFICATIONS, USERS_PER_NOTIFICATION);
}, 120_000);

afterAll(async () => {
  await c?.end();
  await db.drop();
});

/**
 * Devices (two per user), notifications of `perNotification` users each (most completed, some in
 * flight) and their deliveries, all computed (no joins: the statistics are stale on purpose).
 */
async function fill(projectId: string, users: number, notifications: number, perNotification: number) {
  await c.query(
    `INSERT INTO "Device" ("id", "projectId", "userId", "deviceToken", "provider", "platform", "updatedAt")
     SELECT md5($1::text || '-d' || i)::uuid, $1::uuid, 'u' || (i / 2), 'tok-' || $1::text || '-' || i, 'fcm', CASE WHEN i % 2 = 0 THEN 'android' ELSE 'ios' END, now()
     FROM generate_series(0, $2 * 2 - 1) AS i`,
    [projectId, users],
  );
  const status = `(CASE WHEN i % 10 = 0 THEN 'processing' WHEN i % 10 = 1 THEN 'queued' ELSE 'completed' END)`;
  await c.query(
    `INSERT INTO "Notification" ("id", "projectId", "templateId", "userIds", "variables", "status", "recipients", "devices", "sent", "pendingDeliveries", "createdAt", "updatedAt", "enqueuedAt")
     SELECT md5($1::text || '-n' || i)::uuid, $1::uuid, gen_random_uuid(),
       ARRAY(SELECT 'u' || ((i * $3 + k) % $4) FROM generate_series(0, $3 - 1) AS k),
       '{}', ${status}::"NotificationStatus",
       $3, $3 * 2, CASE WHEN i % 10 < 2 THEN 0 ELSE $3 * 2 END, CASE WHEN i % 10 = 0 THEN $3 * 2 ELSE 0 END,
       now() - (i * interval '1 minute'), now(), now() - (i * interval '1 minute')
     FROM generate_series(0, $2 - 1) AS i`,
    [projectId, notifications, perNotification, users],
  );
  await c.query(
    `INSERT INTO "Delivery" ("id", "notificationId", "userId", "deviceId", "platform", "status", "createdAt", "updatedAt")
     SELECT herald_uuid_v7(), md5($1::text || '-n' || i)::uuid, 'u' || u, md5($1::text || '-d' || (u * 2 + j))::uuid, CASE WHEN j = 0 THEN 'android' ELSE 'ios' END,
       (CASE WHEN ${status} = 'completed' THEN 'sent' ELSE 'pending' END)::"DeliveryStatus", now(), now()
     FROM generate_series(0, $2 - 1) AS i, generate_series(0, $3 - 1) AS k, generate_series(0, 1) AS j, LATERAL (SELECT (i * $3 + k) % $4 AS u) AS uu
     WHERE i % 10 <> 1`,
    [projectId, notifications, perNotification, users],
  );
}

/** The worker's statements, with parameters as it binds them, over rows of the big project. */
async function workerStatements(): Promise<PlannedStatement[]> {
  const ids = async (sql: string) => (await c.query<{ id: string }>(sql, [project])).rows.map((r) => r.id);
  const inFlight = await ids(`SELECT "id" FROM "Notification" WHERE "projectId" = $1 AND "status" IN ('queued', 'processing') LIMIT 120`);
  const pending = await ids(`SELECT d."id" FROM "Delivery" d JOIN "Notification" n ON n."id" = d."notificationId" WHERE n."projectId" = $1 AND d."status" = 'pending' LIMIT 500`);
  const claimants = (n: number) => Array.from({ length: n }, () => 'job-1');
  const each = <T>(n: number, v: T) => Array.from({ length: n }, () => v);
  return [
    { name: 'load', text: DELIVERY_SQL.load, values: [arrayLiteral(inFlight)] },
    // With one zone's moment (a local-time send), as the worker passes them: $4–$8 per notification and zone.
    { name: 'plan', text: DELIVERY_SQL.plan, values: [arrayLiteral(inFlight), claimants(inFlight.length), 60_000, arrayLiteral([inFlight[0]]), ['Europe/Berlin'], arrayLiteral([Date.now()]), [true], [false]] },
    { name: 'claim', text: DELIVERY_SQL.claim, values: [arrayLiteral(pending), claimants(pending.length), 60_000] },
    { name: 'due', text: DELIVERY_SQL.due, values: [inFlight[0]] },
    { name: 'renewClaims', text: DELIVERY_SQL.renewClaims, values: [arrayLiteral(pending), claimants(pending.length), 60_000] },
    {
      name: 'record',
      text: DELIVERY_SQL.record,
      values: [arrayLiteral(pending), arrayLiteral(each(pending.length, 'sent')), arrayLiteral(each(pending.length, randomUUID())), each(pending.length, 'projects/p/messages/1'), each(pending.length, null), arrayLiteral(each(pending.length, null)), arrayLiteral(each(pending.length, null)), arrayLiteral(each(pending.length, null)), arrayLiteral(each(pending.length, 'f'))],
    },
    { name: 'start', text: DELIVERY_SQL.start, values: [inFlight[0]] },
    { name: 'staleQueued', text: LOST_WORK_SQL.staleQueued, values: [30_000, 500] },
    { name: 'overdue', text: LOST_WORK_SQL.overdue, values: [500] },
    { name: 'countRequeues', text: LOST_WORK_SQL.countRequeues, values: [inFlight] },
    { name: 'abandon', text: LOST_WORK_SQL.abandon, values: [inFlight, 'given up'] },
    // Retention runs on the worker's pool, beside delivery: its deletes find rows by key too.
    { name: 'retention: notifications', text: RETENTION_SQL.notifications, values: [new Date(), 1000, 5000] },
    { name: 'retention: webhook events', text: RETENTION_SQL.webhookEvents, values: [new Date(), 2000] },
  ];
}

/** The API's reads of the hot path. */
async function apiStatements(): Promise<PlannedStatement[]> {
  const { rows } = await c.query<{ id: string }>(`SELECT "id" FROM "Notification" WHERE "projectId" = $1 AND "status" = 'completed' LIMIT 1`, [project]);
  return [
    { name: 'GET notification', text: NOTIFICATION_READ_SQL.notification, values: [rows[0].id, project] },
    { name: 'GET notification: deliveries', text: NOTIFICATION_READ_SQL.deliveries, values: [rows[0].id] },
    ...overviewStatements(),
  ];
}

const overviewStatements = (): PlannedStatement[] => Object.entries(OVERVIEW_SQL).map(([name, text]) => ({ name: `overview: ${name}`, text, values: [project] }));

/** This connection plans as a pool created with `options` does. */
async function settings(options: DbOptions) {
  await c.query('RESET ALL');
  for (const [k, v] of Object.entries(plannerSettings(options))) await c.query(`SELECT set_config($1, $2, false)`, [k, v]);
}

/** Big-table sequential scans of each statement, by name, planned under the settings of the pool that runs it. */
async function scans(): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  await settings(WORKER_PLANNER);
  for (const s of await workerStatements()) out[s.name] = await scansOf(c, s);
  // The API's pool: the defaults.
  await settings({});
  for (const s of await apiStatements()) out[s.name] = await scansOf(c, s);
  return out;
}

const none = (found: Record<string, string[]>) => Object.fromEntries(Object.keys(found).map((k) => [k, []]));

it('plans every hot statement without a sequential scan of Delivery, Notification or Device on stale statistics (a bulk just written)', async () => {
  const { rows } = await c.query<{ n: string }>(`SELECT reltuples::bigint AS n FROM pg_class WHERE relname = 'Delivery'`);
  // The planner still believes Delivery is small: the statistics are stale.
  expect(Number(rows[0].n)).toBeLessThan(5_000);
  const found = await scans();
  expect(found).toEqual(none(found));
}, 60_000);

it('and once the tables are analysed', async () => {
  await c.query('ANALYZE "Delivery"; ANALYZE "Notification"; ANALYZE "Device"');
  const found = await scans();
  expect(found).toEqual(none(found));
}, 60_000);

it('reads the overview from its roll-ups only: its cost does not grow with notifications, deliveries or devices', async () => {
  await settings({});
  const read: Record<string, string[]> = {};
  for (const s of overviewStatements()) read[s.name] = await relationsOf(c, s);
  expect(read).toEqual({ 'overview: hours': ['ProjectActivity'], 'overview: days': ['ProjectActivity'], 'overview: platforms': ['ProjectDeviceCount'] });
  // The roll-ups were kept by the bulk's own statements.
  const { rows } = await c.query<{ n: number; d: number }>(
    `SELECT (SELECT sum("notifications") FROM "ProjectActivity" WHERE "projectId" = $1)::int AS n, (SELECT sum("count") FROM "ProjectDeviceCount" WHERE "projectId" = $1)::int AS d`,
    [project],
  );
  expect(rows[0]).toEqual({ n: NOTIFICATIONS, d: USERS * 2 });
});

it('catches a statement rewritten to scan', async () => {
  const scanning: PlannedStatement[] = [
    // The deliveries of a user (Delivery has no index that starts with userId).
    { name: 'by user', text: `SELECT "id" FROM "Delivery" WHERE "userId" = $1`, values: ['u1'] },
    // The overview as it was: an aggregate over the project's raw notifications, their dry runs unindexed.
    { name: 'by flag', text: `SELECT count(*) FROM "Notification" WHERE NOT "dryRun"`, values: [] },
  ];
  // Even under the worker's settings, which price scans out wherever an index can answer.
  await settings(WORKER_PLANNER);
  for (const s of scanning) expect(await scansOf(c, s)).not.toEqual([]);
});
