import type { Pool, PoolClient } from 'pg';
import { fanOutPageJobFor, rolloutStageSql } from '@herald/core';
import { AudienceWindow, audiencePageStatement } from '@herald/db';
import type { FinalStatus, Finished, NotificationRow } from './repository';
import { arrayLiteral, finalStatus } from './sql';

/** Why a broadcast ends without a delivery. */
export const EMPTY_AUDIENCE = 'The audience matches no device';

export interface FanOutDeps {
  pool: Pool;
  /** Adds a page's job to the notifications queue (a no-op when a job of that id exists). */
  enqueue(job: ReturnType<typeof fanOutPageJobFor>): Promise<void>;
  /** Devices planned per page: one page job's deliveries. */
  pageSize: number;
  /** A broadcast that ended in its fan-out (an empty audience, or every delivery done before the last page). */
  finished(f: Finished): void;
}

interface FanOutState {
  status: string;
  projectId: string;
  cursor: string | null;
  previous: string | null;
  fannedOut: boolean;
  devices: number;
  ratePerMinute: number | null;
  /** When the broadcast started: relative times of its filter count back from it, and its pace from it. */
  startedAt: Date;
  /** A staged rollout's stages (percent), or null. */
  stages: number[] | null;
}

/**
 * A later stage's delivery waits with this `nextAttemptAt` until its stage starts (rollout.ts): never
 * due, so no page job, retry or sweep sends it before.
 */
export const HELD_FOR_STAGE = '9999-12-31T00:00:00Z';

/** A page's devices with their rollout stage (null without a rollout): $6 is the stages, a float8[] or null. */
const STAGED_DEVICES = `SELECT u.*, CASE WHEN $6::float8[] IS NOT NULL THEN ${rolloutStageSql('$6::float8[]', '$1::uuid', 'u."deviceId"')} END AS "stage"
  FROM unnest($2::text[], $3::uuid[], $4::text[]) AS u("userId", "deviceId", "platform")`;

/** The ids of a page's deliveries that go now: a staged rollout's first stage, or all of them. */
const sentNow = (rows: { id: string; stage: number | null }[]) => rows.filter((r) => !r.stage).map((r) => r.id);

const STATE = `SELECT "status"::text AS "status", "projectId", "fanoutCursor" AS "cursor", "fanoutPreviousCursor" AS "previous", "fannedOut", "devices",
  "ratePerMinute", COALESCE("sendAt", "createdAt") AS "startedAt", "rollout"->'stages' AS "stages" FROM "Notification" WHERE "id" = $1::uuid`;

const active = (s: FanOutState | undefined): s is FanOutState => s !== undefined && !s.fannedOut && (s.status === 'queued' || s.status === 'processing');

/**
 * A broadcast's fan-out (docs/audiences.md#send-to-an-audience): its audience read in keyset pages of
 * device ids, never all at once. Each page's deliveries and the cursor after it are written in one
 * transaction, then the page is queued as a job of its own, which any worker may take. A worker that
 * takes a fan-out over (its job's lock lapsed: the first worker died) queues the last page's job again
 * (by its id: a no-op if it was queued) and goes on after the cursor, so no device is lost or planned
 * twice. Until the last page is planned the notification holds one pending delivery for the fan-out
 * itself, so that it cannot end while pages are still to come. A cancel stops it at the next page.
 */
export class FanOut {
  constructor(private readonly deps: FanOutDeps) {}

  async run(n: NotificationRow): Promise<void> {
    const state = await this.state(n.id);
    if (!active(state)) return;
    if (state.cursor) await this.requeueLastPage(n.id, state.previous, state.cursor);
    // A filtered audience is read in id windows that its own index can answer (audience-window.ts).
    const window = n.audience?.filter ? new AudienceWindow(this.deps.pageSize) : undefined;
    while (await this.page(n, window)) {
      // Planned; the next page.
    }
  }

  /** The fan-out's state; locked within a transaction of `client` (the page's writes serialise with outcome writes). */
  private async state(id: string, client?: PoolClient) {
    const { rows } = await (client ?? this.deps.pool).query<FanOutState>(client ? `${STATE} FOR NO KEY UPDATE` : STATE, [id]);
    return rows[0];
  }

  /** The pending deliveries of the page (previous, cursor]: queued again under the page's job id. */
  private async requeueLastPage(notificationId: string, previous: string | null, cursor: string) {
    const { rows } = await this.deps.pool.query<{ id: string }>(
      `SELECT "id" FROM "Delivery" WHERE "notificationId" = $1::uuid AND ($2::uuid IS NULL OR "deviceId" > $2::uuid) AND "deviceId" <= $3::uuid AND "status" = 'pending'
         AND ("nextAttemptAt" IS NULL OR "nextAttemptAt" < '${HELD_FOR_STAGE}')`,
      [notificationId, previous, cursor],
    );
    if (rows.length) await this.deps.enqueue(fanOutPageJobFor(notificationId, rows.map((r) => r.id), cursor));
  }

  /** Plans the next page and queues its job; false once there is nothing more to plan (or the broadcast stopped). */
  private async page(n: NotificationRow, window?: AudienceWindow): Promise<boolean> {
    const { pool, pageSize } = this.deps;
    const client = await pool.connect();
    let planned: { ids: string[]; cursor: string; delayMs: number } | undefined;
    let more = false;
    try {
      await client.query('BEGIN');
      const state = await this.state(n.id, client);
      if (!active(state)) {
        await client.query('COMMIT');
        return false;
      }
      const after = state.cursor ?? undefined;
      const before = window?.before(after);
      const page = await client.query<{ id: string; userId: string; platform: string }>(
        audiencePageStatement(state.projectId, n.audience?.filter, { now: state.startedAt, after, before, limit: pageSize, columns: ['id', 'userId', 'platform'] }),
      );
      const devices = page.rows;
      const full = devices.length === pageSize;
      const last = !full && before === undefined;
      window?.observe(after, before, devices.length, devices[devices.length - 1]?.id);
      // Paced: this page is due when the devices before it have had their share of the minute.
      const delayMs = state.ratePerMinute ? Math.max(0, state.startedAt.getTime() + (state.devices / state.ratePerMinute) * 60_000 - Date.now()) : 0;
      const inserted = devices.length
        ? await client.query<{ id: string; stage: number | null }>(
            `INSERT INTO "Delivery" ("id", "notificationId", "userId", "deviceId", "platform", "status", "nextAttemptAt", "createdAt", "updatedAt", "rolloutStage")
             SELECT herald_uuid_v7(), $1::uuid, v."userId", v."deviceId", v."platform", 'pending',
               CASE WHEN v."stage" > 0 THEN '${HELD_FOR_STAGE}'::timestamptz WHEN $5::int > 0 THEN now() + ($5::int * interval '1 millisecond') END, now(), now(), v."stage"
             FROM (${STAGED_DEVICES}) AS v
             ON CONFLICT DO NOTHING RETURNING "id", "rolloutStage" AS "stage"`,
            [n.id, devices.map((d) => d.userId), arrayLiteral(devices.map((d) => d.id)), devices.map((d) => d.platform), Math.round(delayMs), state.stages],
          )
        : { rows: [] };
      const added = inserted.rows.length;
      // A window that held less than a page is done to its end.
      const cursor = !full && before !== undefined ? before : devices.length ? devices[devices.length - 1].id : state.cursor;
      const ending = `${last ? 1 : 0} = 1 AND n."pendingDeliveries" + $2::int - 1 <= 0`;
      const { rows } = await client.query<{ status: string }>(
        `UPDATE "Notification" n SET
           "devices" = n."devices" + $2::int,
           "pendingDeliveries" = n."pendingDeliveries" + $2::int - ${last ? 1 : 0},
           "fanoutPreviousCursor" = CASE WHEN $3::uuid IS DISTINCT FROM n."fanoutCursor" THEN n."fanoutCursor" ELSE n."fanoutPreviousCursor" END,
           "fanoutCursor" = $3::uuid,
           "fannedOut" = ${last ? 'true' : 'false'},
           "status" = CASE WHEN ${ending} THEN ${finalStatus('n."sent"')} ELSE 'processing' END,
           "completedAt" = CASE WHEN ${ending} THEN now() ELSE n."completedAt" END,
           "error" = CASE WHEN ${last ? 1 : 0} = 1 AND n."devices" + $2::int = 0 THEN $4 ELSE n."error" END,
           "updatedAt" = now()
         WHERE n."id" = $1::uuid
         RETURNING n."status"::text AS "status"`,
        [n.id, added, cursor, EMPTY_AUDIENCE],
      );
      await client.query('COMMIT');
      const status = rows[0]?.status;
      if (status && status !== 'processing') this.deps.finished({ notificationId: n.id, projectId: state.projectId, status: status as FinalStatus });
      const now = sentNow(inserted.rows);
      if (now.length && cursor) planned = { ids: now, cursor, delayMs };
      more = !last;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
    if (planned) await this.deps.enqueue(fanOutPageJobFor(n.id, planned.ids, planned.cursor, planned.delayMs));
    return more;
  }
}
