import type { Pool, PoolClient } from 'pg';
import { dueByZone, fanOutPageJobFor, rolloutStageSql } from '@herald/core';
import { AudienceWindow, audiencePageStatement } from '@herald/db';
import type { FinalStatus, Finished, NotificationRow } from './repository';
import { arrayLiteral, finalStatus, inIndexOrder, inTransaction } from './sql';

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
  /** Queues the delayed job of each moment a timed broadcast's deliveries were held for (one per moment, not per device). */
  enqueueHeld(held: { notificationId: string; dueAt: number }[]): Promise<void>;
}

/** A page's devices timed (local time, quiet hours): each device's moment, whether it waits for it, whether its zone was the default. */
interface PageTiming {
  notBefore: (Date | null)[];
  hold: boolean[];
  defaulted: number;
  /** The moments rows of the page wait for (epoch ms). */
  moments: number[];
}

/**
 * When each device of a timed broadcast's page is due: computed once per distinct zone of the page, as
 * a send's plan does (docs/delivery.md#local-time-and-quiet-hours). Untimed: no moment, nothing held.
 */
export function timePage(n: Pick<NotificationRow, 'timing' | 'createdAt' | 'dryRun'>, zones: readonly (string | null)[], now = Date.now()): PageTiming {
  if (!n.timing) return { notBefore: zones.map(() => null), hold: zones.map(() => false), defaulted: 0, moments: [] };
  const distinct = [...new Set(zones)];
  const dues = new Map(dueByZone(n.timing, distinct, n.createdAt.getTime(), now).map((d) => [d.zone, d]));
  const timing: PageTiming = { notBefore: [], hold: [], defaulted: 0, moments: [] };
  const moments = new Set<number>();
  for (const zone of zones) {
    const d = dues.get(zone)!;
    const hold = !n.dryRun && d.due > now;
    timing.notBefore.push(new Date(d.due));
    timing.hold.push(hold);
    if (d.defaulted) timing.defaulted++;
    if (hold) moments.add(d.due);
  }
  timing.moments = [...moments];
  return timing;
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

/**
 * A page of a timed broadcast's held rows whose moment has come ($1 the notification; $2, $3 the last
 * row of the previous page; $4 the page size), run `inIndexOrder`: one table in the scan, in the order
 * of "Delivery_not_before_idx", so that a page reads its own rows, with statistics stale or fresh,
 * never a walk of the whole broadcast at each moment.
 */
export const RELEASE_DUE_SQL = `SELECT d."id", d."notBefore"::text AS "at" FROM "Delivery" d
  WHERE d."notificationId" = $1::uuid AND d."notBefore" <= now()
    AND ($2::timestamptz IS NULL OR (d."notBefore", d."id") > ($2::timestamptz, $3::uuid))
    AND d."status" = 'pending' AND d."nextAttemptAt" = d."notBefore"
    AND EXISTS (SELECT 1 FROM "Notification" n WHERE n."id" = $1::uuid AND n."status" IN ('queued', 'processing'))
  ORDER BY d."notBefore", d."id" LIMIT $4`;

/**
 * A page's devices with their local moment (`notBefore`, `hold`: timePage) and their rollout stage (null
 * without a rollout): $6 is the stages, a float8[] or null.
 */
const STAGED_DEVICES = `SELECT u.*, CASE WHEN $6::float8[] IS NOT NULL THEN ${rolloutStageSql('$6::float8[]', '$1::uuid', 'u."deviceId"')} END AS "stage"
  FROM unnest($2::text[], $3::uuid[], $4::text[], $7::timestamptz[], $8::boolean[]) AS u("userId", "deviceId", "platform", "notBefore", "hold")`;

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
    // The moments whose delayed job this run queued: each is queued once, not once per page.
    const queued = new Set<number>();
    while (await this.page(n, window, queued)) {
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
         AND ("nextAttemptAt" IS NULL OR "nextAttemptAt" < '${HELD_FOR_STAGE}') AND ("notBefore" IS NULL OR "notBefore" <= now())`,
      [notificationId, previous, cursor],
    );
    if (rows.length) await this.deps.enqueue(fanOutPageJobFor(notificationId, rows.map((r) => r.id), cursor));
  }

  /** Plans the next page and queues its job; false once there is nothing more to plan (or the broadcast stopped). */
  private async page(n: NotificationRow, window?: AudienceWindow, queued = new Set<number>()): Promise<boolean> {
    const { pool, pageSize } = this.deps;
    let planned: { ids: string[]; cursor: string; delayMs: number } | undefined;
    let moments: number[] = [];
    let more = false;
    let ended: Finished | undefined;
    const stillActive = await inTransaction(pool, async (client) => {
      const state = await this.state(n.id, client);
      if (!active(state)) return false;
      const after = state.cursor ?? undefined;
      const before = window?.before(after);
      const page = await client.query<{ id: string; userId: string; platform: string; timezone: string | null }>(
        audiencePageStatement(state.projectId, n.audience?.filter, { now: state.startedAt, after, before, limit: pageSize, columns: ['id', 'userId', 'platform', 'timezone'] }),
      );
      const devices = page.rows;
      const full = devices.length === pageSize;
      const last = !full && before === undefined;
      window?.observe(after, before, devices.length, devices[devices.length - 1]?.id);
      // Paced: this page is due when the devices before it have had their share of the minute.
      const delayMs = state.ratePerMinute ? Math.max(0, state.startedAt.getTime() + (state.devices / state.ratePerMinute) * 60_000 - Date.now()) : 0;
      // Timed: a held row waits, unclaimed, for its moment's delayed job (nextAttemptAt = notBefore).
      const timing = timePage(n, devices.map((d) => d.timezone));
      const inserted = devices.length
        ? await client.query<{ id: string; deviceId: string; stage: number | null }>(
            `INSERT INTO "Delivery" ("id", "notificationId", "userId", "deviceId", "platform", "status", "nextAttemptAt", "notBefore", "createdAt", "updatedAt", "rolloutStage", "heldForStage")
             SELECT herald_uuid_v7(), $1::uuid, v."userId", v."deviceId", v."platform", 'pending',
               CASE WHEN v."stage" > 0 THEN '${HELD_FOR_STAGE}'::timestamptz WHEN v."hold" THEN v."notBefore" WHEN $5::int > 0 THEN now() + ($5::int * interval '1 millisecond') END,
               v."notBefore", now(), now(), v."stage", CASE WHEN v."stage" > 0 THEN v."stage" END
             FROM (${STAGED_DEVICES}) AS v
             ON CONFLICT DO NOTHING RETURNING "id", "deviceId", "rolloutStage" AS "stage"`,
            [n.id, devices.map((d) => d.userId), arrayLiteral(devices.map((d) => d.id)), devices.map((d) => d.platform), Math.round(delayMs), state.stages, timing.notBefore, timing.hold],
          )
        : { rows: [] };
      const added = inserted.rows.length;
      // Sent with this page: the rows neither held for a later stage nor for their local moment.
      const held = new Set(devices.filter((_, i) => timing.hold[i]).map((d) => d.id));
      const due = inserted.rows.filter((r) => !r.stage && !held.has(r.deviceId));
      // A window that held less than a page is done to its end.
      const cursor = !full && before !== undefined ? before : devices.length ? devices[devices.length - 1].id : state.cursor;
      const ending = `${last ? 1 : 0} = 1 AND n."pendingDeliveries" + $2::int - 1 <= 0`;
      const { rows } = await client.query<{ status: string }>(
        `UPDATE "Notification" n SET
           "devices" = n."devices" + $2::int,
           "defaultZoneDevices" = n."defaultZoneDevices" + $5::int,
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
        [n.id, added, cursor, EMPTY_AUDIENCE, timing.defaulted],
      );
      const status = rows[0]?.status;
      if (status && status !== 'processing') ended = { notificationId: n.id, projectId: state.projectId, status: status as FinalStatus };
      if (due.length && cursor) planned = { ids: due.map((r) => r.id), cursor, delayMs };
      if (added) moments = timing.moments.filter((m) => !queued.has(m));
      more = !last;
      return true;
    });
    if (!stillActive) return false;
    // Told once the page is committed.
    if (ended) this.deps.finished(ended);
    // A moment's job may exist already (queued by a run taken over): adding it again is a no-op.
    if (moments.length) {
      await this.deps.enqueueHeld(moments.map((dueAt) => ({ notificationId: n.id, dueAt })));
      for (const m of moments) queued.add(m);
    }
    if (planned) await this.deps.enqueue(fanOutPageJobFor(n.id, planned.ids, planned.cursor, planned.delayMs));
    return more;
  }

  /**
   * A timed broadcast's moment has come (its delayed job runs): the held rows now due are queued as page
   * jobs of at most `pageSize` rows, read in moment order, so that one zone of a million devices is
   * sent by many jobs, as its fan-out was. A held row has `nextAttemptAt` = `notBefore` until it is
   * tried; a row retried since belongs to its retry job. A canceled broadcast releases nothing.
   */
  async releaseDue(notificationId: string): Promise<void> {
    let after: { at: string; id: string } | undefined;
    for (;;) {
      const { rows }: { rows: { id: string; at: string }[] } = await inIndexOrder<{ id: string; at: string }>(this.deps.pool, RELEASE_DUE_SQL, [
        notificationId,
        after?.at ?? null,
        after?.id ?? null,
        this.deps.pageSize,
      ]);
      if (!rows.length) return;
      after = rows[rows.length - 1];
      await this.deps.enqueue(fanOutPageJobFor(notificationId, rows.map((r) => r.id), `held-${after.id}`));
      if (rows.length < this.deps.pageSize) return;
    }
  }
}
