import { Queue } from 'bullmq';
import pino from 'pino';
import { NOTIFICATIONS_QUEUE } from '@herald/core';
import { sqlPool } from '@herald/db';
import { startPipeline, type Pipeline } from '@herald/testing';
import { Retention, type Purged } from './retention';

/**
 * Retention at volume: old rows in every table it covers (notifications, their deliveries — more
 * than one statement's worth —, webhook events, their deliveries and attempts, the overview's
 * roll-ups), pruned in batches while the API keeps answering; only the recent rows are left, and the
 * rows deleted are reported by table (the metric). A database of its own: the purge reads every project.
 */
let p: Pipeline;
beforeAll(async () => {
  p = await startPipeline({}, {}, { ownDatabase: true });
}, 60_000);
afterAll(() => p.close());

const OLD_NOTIFICATIONS = 30;
const DEVICES_PER_NOTIFICATION = 400;
const OLD_EVENTS = 300;

it('deletes every covered table’s old rows in batches, keeps the recent ones, and the API answers throughout', async () => {
  const t = await p.project();
  const pool = sqlPool(p.h.db);
  const endpoint = await p.h.db.webhookEndpoint.create({ data: { projectId: t.project.id, url: 'https://hooks.example.com/h', events: ['notification.completed'], enabled: false, secret: 'sealed', keyId: 'k1' } });
  const fill = async (count: number, daysAgo: number) => {
    const { rows } = await pool.query<{ id: string }>(
      `INSERT INTO "Notification" ("id", "projectId", "templateId", "userIds", "variables", "status", "recipients", "devices", "sent", "createdAt", "updatedAt", "completedAt")
       SELECT gen_random_uuid(), $1, $2, '{u}', '{}', 'completed', 1, $4, $4, now() - ($3 * interval '1 day'), now(), now() - ($3 * interval '1 day')
       FROM generate_series(1, $5) RETURNING "id"`,
      [t.project.id, t.templateId, daysAgo, DEVICES_PER_NOTIFICATION, count],
    );
    await pool.query(
      `INSERT INTO "Delivery" ("id", "notificationId", "userId", "deviceId", "platform", "status", "createdAt", "updatedAt")
       SELECT herald_uuid_v7(), n, 'u', gen_random_uuid(), 'android', 'sent', now(), now() FROM unnest($1::uuid[]) AS n, generate_series(1, $2)`,
      [rows.map((r) => r.id), DEVICES_PER_NOTIFICATION],
    );
    const { rows: events } = await pool.query<{ id: string }>(
      `INSERT INTO "WebhookEvent" ("id", "projectId", "type", "body", "createdAt")
       SELECT gen_random_uuid(), $1, 'notification.completed', '{}', now() - ($2 * interval '1 day') FROM generate_series(1, $3) RETURNING "id"`,
      [t.project.id, daysAgo, count * 10],
    );
    await pool.query(
      `WITH d AS (
         INSERT INTO "WebhookDelivery" ("id", "endpointId", "eventId", "status", "attempts", "updatedAt")
         SELECT gen_random_uuid(), $1, e, 'succeeded', 2, now() FROM unnest($2::uuid[]) AS e RETURNING "id"
       )
       INSERT INTO "WebhookAttempt" ("id", "deliveryId", "attempt", "succeeded", "durationMs") SELECT gen_random_uuid(), d."id", a, a = 2, 5 FROM d, generate_series(1, 2) AS a`,
      [endpoint.id, events.map((e) => e.id)],
    );
    return rows.map((r) => r.id);
  };
  await fill(OLD_NOTIFICATIONS, 40);
  const recent = await fill(2, 2);

  const counts = async () => {
    const { rows } = await pool.query<Record<string, number>>(
      `SELECT (SELECT count(*) FROM "Notification")::int AS "notifications", (SELECT count(*) FROM "Delivery")::int AS "deliveries",
         (SELECT count(*) FROM "WebhookEvent")::int AS "webhookEvents", (SELECT count(*) FROM "WebhookDelivery")::int AS "webhookDeliveries",
         (SELECT count(*) FROM "WebhookAttempt")::int AS "webhookAttempts", (SELECT count(*) FROM "ProjectActivity")::int AS "activity"`,
    );
    return rows[0];
  };
  const before = await counts();

  // The API answers while the purge runs.
  let purging = true;
  const answers: number[] = [];
  const reads = (async () => {
    while (purging) {
      answers.push((await p.h.get(`/push/notifications/${recent[0]}`, { apiKey: t.apiKey.key })).status);
      answers.push((await p.h.get('/health')).status);
    }
  })();
  const heard: Purged[] = [];
  const queue = new Queue(NOTIFICATIONS_QUEUE, { connection: { host: '127.0.0.1', lazyConnect: true } });
  const retention = new Retention({ pool, queue, days: 30, logger: pino({ level: 'silent' }), observe: (purged) => heard.push(purged) });
  const purged = await retention.purge(60_000);
  purging = false;
  await reads;
  await queue.close();

  const expected = {
    notifications: OLD_NOTIFICATIONS,
    deliveries: OLD_NOTIFICATIONS * DEVICES_PER_NOTIFICATION,
    webhookEvents: OLD_NOTIFICATIONS * 10,
    webhookDeliveries: OLD_NOTIFICATIONS * 10,
    webhookAttempts: OLD_NOTIFICATIONS * 20,
    // The overview's roll-up of the old notifications' hour (older than the 8 days it reads); the recent one is kept.
    activity: 1,
    // AUDIT_RETENTION_DAYS is not set here.
    auditEntries: 0,
  };
  expect(purged).toEqual(expected);
  expect(heard).toEqual([expected]);
  const after = await counts();
  expect(after).toEqual(Object.fromEntries(Object.entries(before).map(([k, n]) => [k, n - expected[k as keyof Purged]])));
  // What is left is the recent rows: the old ones are gone from every table.
  expect(await p.h.db.notification.count({ where: { createdAt: { lt: new Date(Date.now() - 30 * 86_400_000) } } })).toBe(0);
  expect(await p.h.db.delivery.count({ where: { notificationId: { in: recent } } })).toBe(2 * DEVICES_PER_NOTIFICATION);
  expect(answers.length).toBeGreaterThan(0);
  expect(answers.every((s) => s === 200)).toBe(true);
}, 120_000);
