import type { Pool } from 'pg';
import type { FinalStatus, Finished } from '../delivery/repository';
import { finalStatus, query, write } from '../delivery/sql';

/** The statements' texts, in one place: the EXPLAIN test (hot-path.explain.test.ts) plans the same ones. */
export const LOST_WORK_SQL = {
  staleQueued: `SELECT "id", "requeues", "jobId" FROM "Notification"
       WHERE ("status" = 'queued' AND "createdAt" < now() - ($1 * interval '1 millisecond'))
          OR ("status" = 'scheduled' AND "sendAt" < now() - ($1 * interval '1 millisecond'))
       ORDER BY "createdAt" LIMIT $2`,
  overdue: `SELECT d."notificationId", n."requeues", array_agg(d."id" ORDER BY d."id") AS "ids"
       FROM "Notification" n JOIN "Delivery" d ON d."notificationId" = n."id" AND d."status" = 'pending'
       -- Only a notification being processed has pending deliveries: found through its status index, the
       -- sweep reads the rows of the notifications in flight, not an index over every delivery ever made.
       WHERE n."status" = 'processing'
         AND ((d."nextAttemptAt" IS NOT NULL AND d."nextAttemptAt" < now() - interval '60 seconds')
           OR (d."nextAttemptAt" IS NULL AND d."updatedAt" < now() - interval '5 minutes'))
       GROUP BY d."notificationId", n."requeues" LIMIT $1`,
  countRequeues: `WITH touched AS (
         UPDATE "Delivery" SET "updatedAt" = now(), "nextAttemptAt" = CASE WHEN "nextAttemptAt" IS NOT NULL THEN now() END
         WHERE "notificationId" = ANY($1::uuid[]) AND "status" = 'pending'
           AND (("nextAttemptAt" IS NOT NULL AND "nextAttemptAt" < now() - interval '60 seconds')
             OR ("nextAttemptAt" IS NULL AND "updatedAt" < now() - interval '5 minutes'))
       )
       UPDATE "Notification" SET "requeues" = "requeues" + 1, "jobId" = NULL, "enqueuedAt" = now(), "updatedAt" = now() WHERE "id" = ANY($1::uuid[])`,
  abandon: `WITH failed AS (
         UPDATE "Delivery" SET "status" = 'failed', "error" = $2, "nextAttemptAt" = NULL, "updatedAt" = now()
         WHERE "notificationId" = ANY($1::uuid[]) AND "status" = 'pending'
         RETURNING "notificationId"
       ), counts AS (
         SELECT i AS "id", (SELECT count(*) FROM failed f WHERE f."notificationId" = i)::int AS "failed" FROM unnest($1::uuid[]) AS i
       )
       UPDATE "Notification" n SET
         "failed" = n."failed" + c."failed", "pendingDeliveries" = 0,
         "status" = ${finalStatus('n."sent"')}, "completedAt" = now(), "updatedAt" = now()
       FROM counts c WHERE n."id" = c."id" AND n."status" IN ('queued', 'processing')
       RETURNING n."id", n."projectId", n."status"::text AS "status"`,
} as const;

/** The sweeper's statements: work whose job may have been lost, and what becomes of it. */
export class LostWorkQueries {
  constructor(private readonly pool: Pool) {}

  /**
   * Notifications still `queued` long after acceptance, or still `scheduled` long after their
   * `sendAt`: their job may have been lost.
   */
  async staleQueued(olderThanMs: number, limit: number): Promise<{ id: string; requeues: number; jobId: string | null }[]> {
    const { rows } = await query<{ id: string; requeues: number; jobId: string | null }>(this.pool, 'herald_staleQueued',
      LOST_WORK_SQL.staleQueued,
      [olderThanMs, limit],
    );
    return rows;
  }

  /**
   * Scheduled notifications written without a job (due later than SCHEDULE_AHEAD_MS when accepted)
   * that are now due within `aheadMs`: marked queued-for (`enqueuedAt`) and answered, for their
   * delayed jobs. Should adding the jobs fail, the stale look below finds them after their time.
   */
  async promoteScheduled(aheadMs: number, limit: number): Promise<{ id: string; sendAt: Date }[]> {
    const { rows } = await write<{ id: string; sendAt: Date }>(this.pool, 'herald_promoteScheduled',
      `UPDATE "Notification" SET "enqueuedAt" = now(), "updatedAt" = now()
       WHERE "id" IN (
         SELECT "id" FROM "Notification"
         WHERE "status" = 'scheduled' AND "enqueuedAt" IS NULL AND "sendAt" < now() + ($1 * interval '1 millisecond')
         ORDER BY "sendAt" LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING "id", "sendAt"`,
      [aheadMs, limit],
    );
    return rows;
  }

  /**
   * Pending deliveries whose retry was due long ago (a worker died between scheduling it and adding
   * its job), or untouched for minutes, by notification, with the notification's re-queue count.
   */
  async overdue(limit: number): Promise<{ notificationId: string; requeues: number; ids: string[] }[]> {
    const { rows } = await query<{ notificationId: string; requeues: number; ids: string[] }>(this.pool, 'herald_overdue',
      LOST_WORK_SQL.overdue,
      [limit],
    );
    return rows;
  }

  /**
   * Counts a re-queue of each notification's lost work, and restarts the clock of its overdue rows, so
   * that work waiting in a backlog is not queued (and counted) again at every sweep. A notification
   * queued again has a deliver job of its own from now on (`jobId` null).
   */
  async countRequeues(notificationIds: readonly string[]): Promise<void> {
    if (!notificationIds.length) return;
    await write(this.pool, 'herald_countRequeues',
      LOST_WORK_SQL.countRequeues,
      [notificationIds],
    );
  }

  /**
   * Gives up on notifications whose lost work was queued again too often: their pending deliveries
   * fail with `error`, and the notifications take their final status (`failed` when nothing was sent).
   */
  async abandon(notificationIds: readonly string[], error: string): Promise<Finished[]> {
    if (!notificationIds.length) return [];
    const { rows } = await write<{ id: string; projectId: string; status: string }>(this.pool, 'herald_abandon',
      LOST_WORK_SQL.abandon,
      [notificationIds, error],
    );
    return rows.map((r) => ({ notificationId: r.id, projectId: r.projectId, status: r.status as FinalStatus }));
  }
}
