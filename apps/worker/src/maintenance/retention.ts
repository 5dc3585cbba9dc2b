import type { Queue } from 'bullmq';
import type { Pool } from 'pg';
import type { Logger } from 'pino';
import { FINAL_STATUSES_SQL, retentionJob } from '@herald/core';
import { inTransaction } from '../delivery/sql';
import { scheduleEvery, unschedule } from './jobs';

/**
 * Notifications looked at per statement, and the delivery rows one statement deletes at most (about):
 * a statement of 5,000 delivery rows ran in about 30 ms on the shared 2-core machine, one of 20,000 in
 * 80–105 ms (docs/operations.md#retention). The rows it deletes are final, so no outcome write waits
 * for them; the short statement keeps vacuum and replication from falling behind a long one.
 */
const NOTIFICATIONS_PER_STATEMENT = 1000;
const DELIVERIES_PER_STATEMENT = 5000;
const EVENTS_PER_STATEMENT = 2000;
const AUDIT_ENTRIES_PER_STATEMENT = 5000;
/** The overview reads 7 days of roll-ups; one more day covers every time zone's "7 days ago". */
const ACTIVITY_DAYS = 8;

/** Rows deleted, by table. */
export interface Purged {
  notifications: number;
  deliveries: number;
  webhookEvents: number;
  webhookDeliveries: number;
  webhookAttempts: number;
  activity: number;
  auditEntries: number;
}

export type PurgedTable = keyof Purged;

export interface RetentionOptions {
  pool: Pool;
  /** The notifications queue, where the purge runs. */
  queue: Queue;
  /** `RETENTION_DAYS`; 0 keeps everything. */
  days: number;
  /** `AUDIT_RETENTION_DAYS`; 0 keeps every audit entry. */
  auditDays?: number;
  logger: Logger;
  now?: () => number;
  /** Hears the rows each purge deleted (the metrics). */
  observe?: (purged: Purged) => void;
}

/** The purge's statements, as text. */
export const RETENTION_SQL = {
  /**
   * Old final notifications (each project's oldest first) and their delivery rows, up to about $3
   * delivery rows and always at least one notification however large. $1 cutoff, $2 notifications.
   * The deliveries are deleted here rather than by the notification's delete trigger, to count them.
   */
  notifications: `WITH old AS (
       SELECT n."id", n."createdAt", n."devices" + n."recipients" AS "rows"
       FROM "Project" p CROSS JOIN LATERAL (
         SELECT n."id", n."createdAt", n."devices", n."recipients" FROM "Notification" n
         WHERE n."projectId" = p."id" AND n."createdAt" < $1
           AND n."status" IN (${FINAL_STATUSES_SQL})
         ORDER BY n."createdAt" LIMIT $2
       ) n
       -- Project by project, until there are enough: however many projects there are, the statement
       -- reads about $2 notifications.
       LIMIT $2
     ), doomed AS (
       SELECT "id" FROM (
         SELECT "id", sum("rows") OVER (ORDER BY "createdAt", "id") AS "upto", row_number() OVER (ORDER BY "createdAt", "id") AS "nth" FROM old
       ) o WHERE "upto" <= $3 OR "nth" = 1
     ), deliveries AS (
       DELETE FROM "Delivery" WHERE "notificationId" IN (SELECT "id" FROM doomed) RETURNING 1
     ), notifications AS (
       DELETE FROM "Notification" WHERE "id" IN (SELECT "id" FROM doomed) RETURNING 1
     )
     SELECT (SELECT count(*) FROM notifications)::int AS "notifications", (SELECT count(*) FROM deliveries)::int AS "deliveries"`,
  /** Old webhook events none of whose attempts is pending, with their deliveries and attempts. $1 cutoff, $2 events. */
  webhookEvents: `WITH doomed AS (
       SELECT e."id" FROM "Project" p CROSS JOIN LATERAL (
         SELECT e."id" FROM "WebhookEvent" e
         WHERE e."projectId" = p."id" AND e."createdAt" < $1
           AND NOT EXISTS (SELECT 1 FROM "WebhookDelivery" d WHERE d."eventId" = e."id" AND d."status" = 'pending')
         ORDER BY e."createdAt" LIMIT $2
       ) e
       LIMIT $2
     ), deliveries AS (
       DELETE FROM "WebhookDelivery" WHERE "eventId" IN (SELECT "id" FROM doomed) RETURNING "id"
     ), attempts AS (
       DELETE FROM "WebhookAttempt" WHERE "deliveryId" IN (SELECT "id" FROM deliveries) RETURNING 1
     ), events AS (
       DELETE FROM "WebhookEvent" WHERE "id" IN (SELECT "id" FROM doomed) RETURNING 1
     )
     SELECT (SELECT count(*) FROM events)::int AS "webhookEvents", (SELECT count(*) FROM deliveries)::int AS "webhookDeliveries",
       (SELECT count(*) FROM attempts)::int AS "webhookAttempts"`,
  /** The overview's roll-ups older than it reads. $1 cutoff. */
  activity: `DELETE FROM "ProjectActivity" WHERE "hour" < $1`,
} as const;

/**
 * Deletes what is older than `RETENTION_DAYS`: final notifications (completed, partially failed,
 * failed, canceled) with their delivery rows, and webhook events with their deliveries and attempts,
 * unless an attempt is still pending. A notification still queued, scheduled or being delivered is
 * kept however old it is. The overview's roll-ups are kept for the 8 days it reads.
 *
 * It runs as a BullMQ job scheduler (`retentionJob`), once per sweep interval, a statement at a
 * time: each statement deletes at most about `DELIVERIES_PER_STATEMENT` delivery rows, so it holds
 * its locks briefly, and the purge stops once `budgetMs` has passed and carries on at the next run.
 * Rows are found by project through the `(projectId, createdAt)` indexes that listing already uses,
 * so keeping history costs no index of its own.
 */
export class Retention {
  private readonly pool: Pool;
  private readonly days: number;
  private readonly auditDays: number;
  private readonly now: () => number;

  constructor(private readonly options: RetentionOptions) {
    this.pool = options.pool;
    this.days = options.days;
    this.auditDays = options.auditDays ?? 0;
    this.now = options.now ?? Date.now;
  }

  /** Purges every `intervalMs` (the first one interval from now) while a retention is set; every worker may call it. */
  schedule(intervalMs: number): Promise<void> {
    return this.days > 0 || this.auditDays > 0 ? scheduleEvery(this.options.queue, retentionJob, intervalMs) : unschedule(this.options.queue, retentionJob);
  }

  async purge(budgetMs = 5000): Promise<Purged> {
    const purged: Purged = { notifications: 0, deliveries: 0, webhookEvents: 0, webhookDeliveries: 0, webhookAttempts: 0, activity: 0, auditEntries: 0 };
    const until = this.now() + budgetMs;
    // Each kind gets at least one statement per purge, then more while the budget lasts.
    const drain = async (step: () => Promise<Partial<Purged>>, key: PurgedTable) => {
      for (;;) {
        const rows = await step();
        for (const [k, n] of Object.entries(rows) as [PurgedTable, number][]) purged[k] += n;
        if (!rows[key] || this.now() >= until) return;
      }
    };
    if (this.days > 0) {
      const cutoff = new Date(this.now() - this.days * 86_400_000);
      await drain(() => this.statement('herald_retention_notifications', RETENTION_SQL.notifications, [cutoff, NOTIFICATIONS_PER_STATEMENT, DELIVERIES_PER_STATEMENT]), 'notifications');
      await drain(() => this.statement('herald_retention_webhook_events', RETENTION_SQL.webhookEvents, [cutoff, EVENTS_PER_STATEMENT]), 'webhookEvents');
      const { rowCount } = await this.pool.query({ name: 'herald_retention_activity', text: RETENTION_SQL.activity, values: [new Date(this.now() - ACTIVITY_DAYS * 86_400_000)] });
      purged.activity = rowCount ?? 0;
    }
    if (this.auditDays > 0) {
      const auditCutoff = new Date(this.now() - this.auditDays * 86_400_000);
      await drain(async () => ({ auditEntries: await this.auditEntries(auditCutoff) }), 'auditEntries');
    }
    if (purged.notifications || purged.webhookEvents || purged.auditEntries) this.options.logger.info(purged, 'retention: deleted what is older than RETENTION_DAYS / AUDIT_RETENTION_DAYS');
    this.options.observe?.(purged);
    return purged;
  }

  private async statement(name: string, text: string, values: unknown[]): Promise<Partial<Purged>> {
    const { rows } = await this.pool.query<Partial<Purged>>({ name, text, values });
    return rows[0];
  }

  /**
   * One statement's worth of audit entries older than the cutoff, each project's oldest first (so
   * that what is left of a chain is its end). The append-only trigger lets this one DELETE through
   * (`herald.audit_retention`, for this transaction only), and each project's anchor moves to the
   * last entry removed, so that verifying the chain starts where it now starts.
   */
  private auditEntries(cutoff: Date): Promise<number> {
    return inTransaction(this.pool, async (client) => {
      await client.query(`SELECT set_config('herald.audit_retention', 'on', true)`);
      const { rowCount } = await client.query({
        name: 'herald_retention_audit_entries',
        text: `WITH cut AS (
           SELECT "projectId", max("number") AS "upto" FROM "AuditEntry" WHERE "createdAt" < $1 GROUP BY "projectId"
         ), doomed AS (
           SELECT a."id", a."projectId", a."number", a."hash" FROM cut JOIN "AuditEntry" a ON a."projectId" = cut."projectId" AND a."number" <= cut."upto"
           ORDER BY a."projectId", a."number" LIMIT $2
         ), anchored AS (
           INSERT INTO "AuditAnchor" ("projectId", "number", "hash")
           SELECT DISTINCT ON ("projectId") "projectId", "number", "hash" FROM doomed ORDER BY "projectId", "number" DESC
           ON CONFLICT ("projectId") DO UPDATE SET "number" = EXCLUDED."number", "hash" = EXCLUDED."hash"
         )
         DELETE FROM "AuditEntry" WHERE "id" IN (SELECT "id" FROM doomed)`,
        values: [cutoff, AUDIT_ENTRIES_PER_STATEMENT],
      });
      return rowCount ?? 0;
    });
  }
}
