import type { Queue } from 'bullmq';
import type { Pool } from 'pg';
import type { Logger } from 'pino';
import { FINAL_STATUSES_SQL, retentionJob } from '@herald/core';
import { scheduleEvery, unschedule } from './jobs';

/** Notifications looked at per statement, and the delivery rows one statement deletes at most (about). */
const NOTIFICATIONS_PER_STATEMENT = 1000;
const DELIVERIES_PER_STATEMENT = 20_000;
const EVENTS_PER_STATEMENT = 5000;
const AUDIT_ENTRIES_PER_STATEMENT = 5000;

export interface Purged {
  notifications: number;
  webhookEvents: number;
  auditEntries: number;
}

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
}

/**
 * Deletes what is older than `RETENTION_DAYS`: final notifications (completed, partially failed,
 * failed, canceled) with their delivery rows (a trigger takes them along), and webhook events with
 * their delivery attempts, unless an attempt is still pending. A notification still queued,
 * scheduled or being delivered is kept however old it is.
 *
 * It runs as a BullMQ job scheduler (`retentionJob`), once per sweep interval, a statement at a
 * time: each statement deletes at most about `DELIVERIES_PER_STATEMENT` delivery rows, so it holds
 * its locks briefly, and the purge stops once `budgetMs` has passed and carries on at the next run. Rows are found by project through the
 * `(projectId, createdAt)` indexes that listing already uses, so keeping history costs no index of
 * its own.
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
    const purged: Purged = { notifications: 0, webhookEvents: 0, auditEntries: 0 };
    const until = this.now() + budgetMs;
    // Each kind gets at least one statement per purge, then more while the budget lasts.
    const drain = async (step: () => Promise<number>) => {
      let total = 0;
      for (let n = await step(); n > 0; n = this.now() < until ? await step() : 0) total += n;
      return total;
    };
    if (this.days > 0) {
      const cutoff = new Date(this.now() - this.days * 86_400_000);
      purged.notifications = await drain(() => this.notifications(cutoff));
      purged.webhookEvents = await drain(() => this.webhookEvents(cutoff));
    }
    if (this.auditDays > 0) {
      const auditCutoff = new Date(this.now() - this.auditDays * 86_400_000);
      purged.auditEntries = await drain(() => this.auditEntries(auditCutoff));
    }
    if (purged.notifications || purged.webhookEvents || purged.auditEntries) this.options.logger.info(purged, 'retention: deleted what is older than RETENTION_DAYS / AUDIT_RETENTION_DAYS');
    return purged;
  }

  /** One statement's worth of old final notifications (each project's oldest first); answers how many it deleted. */
  private async notifications(cutoff: Date): Promise<number> {
    const { rowCount } = await this.pool.query({
      name: 'herald_retention_notifications',
      text: `WITH old AS (
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
         -- Up to about $3 delivery rows, and always at least one notification however large.
         SELECT "id" FROM (
           SELECT "id", sum("rows") OVER (ORDER BY "createdAt", "id") AS "upto", row_number() OVER (ORDER BY "createdAt", "id") AS "nth" FROM old
         ) o WHERE "upto" <= $3 OR "nth" = 1
       )
       DELETE FROM "Notification" WHERE "id" IN (SELECT "id" FROM doomed)`,
      values: [cutoff, NOTIFICATIONS_PER_STATEMENT, DELIVERIES_PER_STATEMENT],
    });
    return rowCount ?? 0;
  }

  /** One statement's worth of old webhook events none of whose attempts is pending. */
  private async webhookEvents(cutoff: Date): Promise<number> {
    const { rowCount } = await this.pool.query({
      name: 'herald_retention_webhook_events',
      text: `DELETE FROM "WebhookEvent" WHERE "id" IN (
         SELECT e."id" FROM "Project" p CROSS JOIN LATERAL (
           SELECT e."id" FROM "WebhookEvent" e
           WHERE e."projectId" = p."id" AND e."createdAt" < $1
             AND NOT EXISTS (SELECT 1 FROM "WebhookDelivery" d WHERE d."eventId" = e."id" AND d."status" = 'pending')
           ORDER BY e."createdAt" LIMIT $2
         ) e
         LIMIT $2
       )`,
      values: [cutoff, EVENTS_PER_STATEMENT],
    });
    return rowCount ?? 0;
  }

  /**
   * One statement's worth of audit entries older than the cutoff, each project's oldest first (so
   * that what is left of a chain is its end). The append-only trigger lets this one DELETE through
   * (`herald.audit_retention`, for this transaction only), and each project's anchor moves to the
   * last entry removed, so that verifying the chain starts where it now starts.
   */
  private async auditEntries(cutoff: Date): Promise<number> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
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
      await client.query('COMMIT');
      return rowCount ?? 0;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }
}
