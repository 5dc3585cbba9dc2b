import type { Pool } from 'pg';
import type { AudienceFilter, DeliveredStatus, PushOptions, Timing, ZoneDue } from '@herald/core';
import { arrayLiteral, finalStatus, query, write } from './sql';

/** The statements' texts, in one place: the EXPLAIN test (hot-path.explain.test.ts) plans the same ones. */
export const DELIVERY_SQL = {
  load: `SELECT "id", "projectId", "templateId", "variables", "data", "imageUrl", "status"::text AS "status", cardinality("userIds") AS "recipients",
         "options", "dataOnly", "dryRun", "recipientVariables", "timing", "createdAt", "audience"
       FROM "Notification" WHERE "id" = ANY($1::uuid[])`,
  plan: `WITH input AS (
         SELECT * FROM unnest($1::uuid[], $2::text[]) AS i("id", "claimant")
       ), sched AS (
         SELECT * FROM unnest($4::uuid[], $5::text[], $6::bigint[], $7::boolean[], $8::boolean[]) AS s("id", "zone", "due", "hold", "defaulted")
       ), target AS (
         SELECT n."id", n."projectId", n."userIds", i."claimant" FROM "Notification" n JOIN input i ON i."id" = n."id"
         WHERE n."status" IN ('queued', 'processing')
         -- Delivery has no foreign key (it cost a lookup per row): a notification deleted meanwhile is
         -- skipped here rather than given rows, and one deleted later takes its rows with it (a trigger).
         FOR NO KEY UPDATE OF n
       ), users AS (
         SELECT t."id", t."projectId", t."claimant", u AS "userId" FROM target t CROSS JOIN LATERAL unnest(t."userIds") AS u
       ), pairs AS (
         -- Each user's devices, or one row of NULLs for a user without any. Looked up user by user on the
         -- (projectId, userId) index: OFFSET 0 keeps the planner from hashing the whole Device table
         -- instead, which it did for a guessed 10 users per notification.
         SELECT us."id", us."claimant", us."userId", dv."id" AS "deviceId", dv."platform", dv."deviceToken", dv."timezone"
         FROM users us LEFT JOIN LATERAL (
           SELECT d."id", d."platform", d."deviceToken", d."timezone" FROM "Device" d WHERE d."projectId" = us."projectId" AND d."userId" = us."userId" OFFSET 0
         ) dv ON true
       ), timed AS (
         -- A timed notification's devices take their zone's moment ('' stands for devices without a zone).
         SELECT p.*, to_timestamp(s."due" / 1000.0) AS "notBefore", coalesce(s."hold", false) AS "hold", coalesce(s."defaulted", false) AS "defaulted"
         FROM pairs p LEFT JOIN sched s ON s."id" = p."id" AND coalesce(s."zone", '') = coalesce(p."timezone", '')
       ), added AS (
         INSERT INTO "Delivery" ("id", "notificationId", "userId", "deviceId", "platform", "status", "claimedBy", "claimedUntil", "nextAttemptAt", "notBefore", "createdAt", "updatedAt")
         SELECT herald_uuid_v7(), p."id", p."userId", p."deviceId", p."platform", 'pending',
           CASE WHEN NOT p."hold" THEN p."claimant" END, CASE WHEN NOT p."hold" THEN now() + ($3 * interval '1 millisecond') END,
           CASE WHEN p."hold" THEN p."notBefore" END, p."notBefore", now(), now()
         FROM timed p WHERE p."deviceId" IS NOT NULL
         ON CONFLICT DO NOTHING
         RETURNING "id", "notificationId", "userId", "deviceId", "nextAttemptAt"
       ), nobody AS (
         INSERT INTO "Delivery" ("id", "notificationId", "userId", "deviceId", "platform", "status", "createdAt", "updatedAt")
         SELECT herald_uuid_v7(), p."id", p."userId", NULL, NULL, 'no_devices', now(), now()
         FROM pairs p WHERE p."deviceId" IS NULL
         ON CONFLICT DO NOTHING
       ), counted AS (
         SELECT t."id", count(a."id")::int AS "added", count(a."id") FILTER (WHERE tm."defaulted")::int AS "defaulted"
         FROM target t LEFT JOIN added a ON a."notificationId" = t."id"
         LEFT JOIN timed tm ON tm."id" = a."notificationId" AND tm."deviceId" = a."deviceId"
         GROUP BY t."id"
       ), planned AS (
         UPDATE "Notification" n SET
           "devices" = n."devices" + c."added",
           "defaultZoneDevices" = n."defaultZoneDevices" + c."defaulted",
           "pendingDeliveries" = n."pendingDeliveries" + c."added",
           "status" = CASE WHEN n."pendingDeliveries" + c."added" <= 0 THEN ${finalStatus('n."sent"')} ELSE 'processing' END,
           "completedAt" = CASE WHEN n."pendingDeliveries" + c."added" <= 0 THEN now() ELSE n."completedAt" END,
           "updatedAt" = now()
         FROM counted c WHERE n."id" = c."id" AND n."status" IN ('queued', 'processing')
         RETURNING n."id", n."projectId", n."status"::text AS "status"
       )
       SELECT 'row' AS "kind", a."id", a."notificationId", a."userId", a."deviceId", p."deviceToken", p."platform", NULL AS "projectId", NULL AS "status"
       FROM added a JOIN pairs p ON p."id" = a."notificationId" AND p."deviceId" = a."deviceId" WHERE a."nextAttemptAt" IS NULL
       UNION ALL
       SELECT DISTINCT 'held', a."notificationId", a."notificationId", NULL::text, NULL::uuid, NULL::text, NULL::text, NULL::uuid, (extract(epoch FROM a."nextAttemptAt") * 1000)::bigint::text
       FROM added a WHERE a."nextAttemptAt" IS NOT NULL
       UNION ALL
       SELECT 'finished', p."id", p."id", NULL, NULL, NULL, NULL, p."projectId", p."status" FROM planned p WHERE p."status" <> 'processing'`,
  claim: `WITH v AS (
         SELECT * FROM unnest($1::uuid[], $2::text[]) AS v("id", "claimant")
       ), taken AS (
         UPDATE "Delivery" d SET "claimedBy" = v."claimant", "claimedUntil" = now() + ($3 * interval '1 millisecond'),
           "possiblyDelivered" = d."possiblyDelivered" OR (d."claimedBy" IS NOT NULL AND d."claimedBy" <> v."claimant")
         FROM v
         WHERE d."id" = v."id" AND d."status" = 'pending'
           AND (d."claimedUntil" IS NULL OR d."claimedUntil" < now() OR d."claimedBy" = v."claimant")
         RETURNING d."id", d."notificationId", d."userId", d."deviceId", d."attempts", d."providerConfigId"
       )
       SELECT t.*, dv."deviceToken", dv."platform", false AS "held" FROM taken t LEFT JOIN "Device" dv ON dv."id" = t."deviceId"
       UNION ALL
       SELECT d."id", d."notificationId", NULL, NULL, NULL, NULL, NULL, NULL, true FROM v JOIN "Delivery" d ON d."id" = v."id"
       WHERE d."status" = 'pending' AND NOT EXISTS (SELECT 1 FROM taken t WHERE t."id" = d."id")`,
  due: `SELECT "id" FROM "Delivery" WHERE "notificationId" = $1::uuid AND "status" = 'pending' AND ("nextAttemptAt" IS NULL OR "nextAttemptAt" <= now())`,
  renewClaims: `UPDATE "Delivery" SET "claimedUntil" = now() + ($3 * interval '1 millisecond')
       WHERE "id" IN (
         SELECT d."id" FROM unnest($1::uuid[], $2::text[]) AS v("id", "claimant")
         JOIN "Delivery" d ON d."id" = v."id" AND d."claimedBy" = v."claimant" AND d."status" = 'pending'
         FOR UPDATE OF d SKIP LOCKED
       )`,
  record: `WITH v AS (
         SELECT * FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::text[], $5::text[], $6::int[], $7::int[], $8::uuid[], $9::boolean[])
           AS v("id", "kind", "provider", "mid", "err", "attempts", "delay", "device", "possibly")
       ), written AS (
         UPDATE "Delivery" d SET
           "status" = (CASE v."kind" WHEN 'sent' THEN 'sent' WHEN 'validated' THEN 'validated' WHEN 'fail' THEN 'failed' WHEN 'prune' THEN 'failed' ELSE 'pending' END)::"DeliveryStatus",
           "providerConfigId" = v."provider",
           "providerMessageId" = v."mid",
           "error" = v."err",
           "tokenRemoved" = v."kind" = 'prune',
           "attempts" = CASE v."kind" WHEN 'retry' THEN v."attempts" WHEN 'failover' THEN 0 ELSE d."attempts" END,
           "nextAttemptAt" = CASE WHEN v."kind" = 'retry' THEN now() + (v."delay" * interval '1 millisecond') END,
           "claimedBy" = CASE WHEN v."kind" = 'retry' THEN NULL ELSE d."claimedBy" END,
           "claimedUntil" = CASE WHEN v."kind" = 'retry' THEN NULL ELSE d."claimedUntil" END,
           "possiblyDelivered" = d."possiblyDelivered" OR v."possibly",
           "updatedAt" = now()
         FROM v WHERE d."id" = v."id" AND d."status" = 'pending'
         RETURNING d."id", d."notificationId", v."kind", v."device"
       ), pruned AS (
         DELETE FROM "Device" WHERE "id" IN (SELECT "device" FROM written WHERE "kind" = 'prune')
       ), counts AS (
         SELECT "notificationId" AS "id",
           -- A dry run's validated messages count as sent, so that its final status reads as a send's.
           count(*) FILTER (WHERE "kind" IN ('sent', 'validated'))::int AS "sent",
           count(*) FILTER (WHERE "kind" IN ('fail', 'prune'))::int AS "failed",
           count(*) FILTER (WHERE "kind" = 'prune')::int AS "pruned"
         FROM written GROUP BY 1
       ), counted AS (
         UPDATE "Notification" n SET
           "sent" = n."sent" + c."sent",
           "failed" = n."failed" + c."failed",
           "invalidTokensRemoved" = n."invalidTokensRemoved" + c."pruned",
           "pendingDeliveries" = n."pendingDeliveries" - c."sent" - c."failed",
           "status" = CASE WHEN n."pendingDeliveries" - c."sent" - c."failed" <= 0 THEN ${finalStatus('(n."sent" + c."sent")')} ELSE n."status" END,
           "completedAt" = CASE WHEN n."pendingDeliveries" - c."sent" - c."failed" <= 0 THEN now() ELSE n."completedAt" END,
           "updatedAt" = now()
         FROM counts c WHERE n."id" = c."id" AND c."sent" + c."failed" > 0 AND n."status" IN ('queued', 'processing')
         RETURNING n."id", n."projectId", n."status"::text AS "status"
       )
       SELECT 'skipped' AS "kind", v."id", NULL AS "projectId", NULL AS "status" FROM v WHERE NOT EXISTS (SELECT 1 FROM written w WHERE w."id" = v."id")
       UNION ALL
       SELECT 'finished', "id", "projectId", "status" FROM counted WHERE "status" <> 'processing'`,
  start: `UPDATE "Notification" SET "status" = 'queued', "updatedAt" = now() WHERE "id" = $1::uuid AND "status" = 'scheduled' RETURNING "id"`,
} as const;

/**
 * The statements of delivery's steps (docs/delivery.md: load, plan, claim, record), each written for
 * many notifications at once: the worker gathers the notifications that reach the same step in the
 * same moment and runs the step once for all of them (see `GroupCommit`). The sweeper's statements
 * are in maintenance/lost-work.ts; what delivery reads about a project, in packages/project-state.
 */

/** A notification as delivery reads it. */
export interface NotificationRow {
  id: string;
  projectId: string;
  templateId: string;
  variables: Record<string, unknown> | null;
  data: Record<string, unknown> | null;
  imageUrl: string | null;
  status: string;
  recipients: number;
  /** The send's own options (the template's defaults are merged under them). */
  options: PushOptions | null;
  dataOnly: boolean;
  dryRun: boolean;
  /** Personalised bulk: each recipient's variables by user id, merged over `variables`. */
  recipientVariables: Record<string, Record<string, unknown>> | null;
  /** Local time and quiet hours (docs/delivery.md#local-time-and-quiet-hours); null: every delivery goes when planned. */
  timing: Timing | null;
  createdAt: Date;
  /** A broadcast's audience (null for a send to users): its devices are planned page by page (fan-out.ts). */
  audience: BroadcastAudience | null;
}

/** A broadcast's audience as the API recorded it: a filter, or every device of the project. */
export interface BroadcastAudience {
  filter?: AudienceFilter;
  segmentId?: string;
  all?: true;
}

/**
 * A notification to plan, for the job that sends it; with `timing`, when its devices are due in each of
 * their zones (`hold`: not now, left to the delayed job of that moment).
 */
export interface PlanItem {
  notificationId: string;
  claimant: string;
  schedule?: (ZoneDue & { hold: boolean })[];
}

/** A pending delivery this job holds, with its device (null when the device is gone). */
export interface DeliveryRow {
  id: string;
  notificationId: string;
  /** The customer's user the device belongs to (personalised bulk renders per user). */
  userId: string;
  deviceId: string | null;
  attempts: number;
  providerConfigId: string | null;
  deviceToken: string | null;
  platform: string | null;
}

/**
 * What became of one pending delivery:
 * - `sent`, `validated` (a dry run's), `fail`, `prune` (failed and its device deleted): final;
 * - `retry`: pending again after `delayMs`, with `attempts` on `providerConfigId`, left to a retry job;
 * - `failover`: pending on the next provider (`providerConfigId`) with a fresh attempt count, still
 *   held by the job that moves on to that provider.
 */
export type Outcome =
  | { kind: 'sent'; deliveryId: string; providerConfigId: string; providerMessageId: string }
  /** A dry run's message that FCM validated: final, and counted with the sent ones. */
  | { kind: 'validated'; deliveryId: string; providerConfigId: string }
  | { kind: 'fail'; deliveryId: string; providerConfigId: string | null; error: string }
  | { kind: 'prune'; deliveryId: string; providerConfigId: string; deviceId: string; error: string }
  /** `possiblyDelivered`: the attempt's fate is unknown; the row keeps the mark from then on. */
  | { kind: 'retry'; deliveryId: string; providerConfigId: string; attempts: number; delayMs: number; error: string; possiblyDelivered?: boolean }
  | { kind: 'failover'; deliveryId: string; providerConfigId: string; error: string };

export type FinalStatus = DeliveredStatus;

/** A notification that reached its final status in a statement: reported exactly once. */
export interface Finished {
  notificationId: string;
  projectId: string;
  status: FinalStatus;
}


/** A pending row asked for by a job: claimed for it, held by another job that is sending it, or not pending any more. */
export type Claimed = DeliveryRow | 'held' | null;

export class DeliveryRepository {
  /**
   * `claimMs`: how long a claim on a row lasts unless renewed (`renewClaims`). A job renews the claims
   * it holds while it runs, so a claim outlives its job by at most this long.
   */
  constructor(
    private readonly pool: Pool,
    private readonly claimMs: number,
  ) {}

  /** The notifications (those that exist). */
  async load(ids: readonly string[]): Promise<NotificationRow[]> {
    const { rows } = await query<NotificationRow>(this.pool, 'herald_load',
      DELIVERY_SQL.load,
      [arrayLiteral(ids)],
    );
    return rows;
  }

  /**
   * Plans each notification that is not final: one pending Delivery row per registered device of its
   * users (the devices as they are now), created claimed by the job that sends it, and one
   * `no_devices` row per user without any device. Idempotent: a row that exists is not created
   * again, so a job run again only adds devices registered since. The counters follow; a
   * notification left with nothing pending (no devices at all) gets its final status here.
   * A timed notification's rows (its `schedule`) carry their device zone's `notBefore`; those due
   * later are created unclaimed with `nextAttemptAt` at that moment, for its delayed job.
   * Returns the rows created that are due now, with their device, the moments rows were held for,
   * and the notifications that finished.
   */
  async plan(items: readonly PlanItem[]): Promise<{ rows: DeliveryRow[]; finished: Finished[]; held: { notificationId: string; dueAt: number }[] }> {
    const sched = { id: [] as string[], zone: [] as (string | null)[], due: [] as number[], hold: [] as boolean[], defaulted: [] as boolean[] };
    for (const i of items) {
      for (const z of i.schedule ?? []) {
        sched.id.push(i.notificationId);
        sched.zone.push(z.zone);
        sched.due.push(z.due);
        sched.hold.push(z.hold);
        sched.defaulted.push(z.defaulted);
      }
    }
    const { rows } = await write<{ kind: string; id: string; notificationId: string; userId: string | null; deviceId: string | null; deviceToken: string | null; platform: string | null; projectId: string | null; status: string | null }>(this.pool, 'herald_plan',
      DELIVERY_SQL.plan,
      [arrayLiteral(items.map((i) => i.notificationId)), items.map((i) => i.claimant), this.claimMs, arrayLiteral(sched.id), sched.zone, arrayLiteral(sched.due), sched.hold, sched.defaulted],
    );
    const out: { rows: DeliveryRow[]; finished: Finished[]; held: { notificationId: string; dueAt: number }[] } = { rows: [], finished: [], held: [] };
    for (const r of rows) {
      if (r.kind === 'held') out.held.push({ notificationId: r.id, dueAt: Number(r.status) });
      else if (r.kind === 'row') out.rows.push({ id: r.id, notificationId: r.notificationId, userId: r.userId!, deviceId: r.deviceId, attempts: 0, providerConfigId: null, deviceToken: r.deviceToken, platform: r.platform });
      else out.finished.push({ notificationId: r.id, projectId: r.projectId!, status: r.status as FinalStatus });
    }
    return out;
  }

  /**
   * Claims the given pending rows for their job: a row is taken when nobody holds it, its claim has
   * lapsed, or the job holds it already. A row another job holds is left to it (`held`): one job
   * sends a row at a time. A row no longer pending is answered null. A row taken over from a run whose
   * claim lapsed (a worker that died holding it) may have been sent by that run: it is marked
   * `possiblyDelivered`.
   */
  async claim(items: readonly { deliveryId: string; claimant: string }[]): Promise<Claimed[]> {
    const { rows } = await write<DeliveryRow & { held: boolean }>(this.pool, 'herald_claim',
      DELIVERY_SQL.claim,
      [arrayLiteral(items.map((i) => i.deliveryId)), items.map((i) => i.claimant), this.claimMs],
    );
    const byId = new Map<string, Claimed>();
    for (const { held, ...row } of rows) byId.set(row.id, held ? 'held' : row);
    return items.map((i) => byId.get(i.deliveryId) ?? null);
  }

  /** The distinct zones of the devices of a notification's users (`null`: devices without one). */
  async zones(notificationId: string): Promise<(string | null)[]> {
    const { rows } = await query<{ timezone: string | null }>(this.pool, 'herald_zones',
      `SELECT DISTINCT d."timezone" FROM "Notification" n CROSS JOIN LATERAL unnest(n."userIds") AS u
       JOIN "Device" d ON d."projectId" = n."projectId" AND d."userId" = u
       WHERE n."id" = $1::uuid`,
      [notificationId],
    );
    return rows.map((r) => r.timezone);
  }

  /** A shutting-down run's unsent rows: its claims dropped, so that the job's next run takes them at once. */
  async release(claimant: string, ids: readonly string[]): Promise<void> {
    if (!ids.length) return;
    await query(this.pool, 'herald_release',
      `UPDATE "Delivery" SET "claimedBy" = NULL, "claimedUntil" = NULL WHERE "id" = ANY($1::uuid[]) AND "claimedBy" = $2 AND "status" = 'pending'`,
      [arrayLiteral(ids), claimant],
    );
  }

  /**
   * For a deliver job run again (a worker died, a lock stalled): the notification's pending rows that
   * are due, to be claimed. Rows with a retry scheduled are left to their retry job.
   */
  async due(notificationId: string): Promise<string[]> {
    const { rows } = await query<{ id: string }>(this.pool, 'herald_due',
      DELIVERY_SQL.due,
      [notificationId],
    );
    return rows.map((r) => r.id);
  }

  /**
   * Extends the claims that runs under way hold on the rows they still send (by id, with the run
   * that holds each). Rows that another statement is writing at this moment (their outcome, most
   * likely) are skipped rather than waited for: waiting would deadlock with a write that locks the
   * same rows in another order, and a skipped row keeps its claim until the next renewal.
   */
  async renewClaims(held: readonly { claimant: string; ids: readonly string[] }[]): Promise<void> {
    const ids = held.flatMap((h) => h.ids);
    if (!ids.length) return;
    await query(this.pool, 'herald_renewClaims',
      DELIVERY_SQL.renewClaims,
      [arrayLiteral(ids), held.flatMap((h) => h.ids.map(() => h.claimant)), this.claimMs],
    );
  }

  /**
   * Writes outcomes, the notifications' counters and — for each notification whose last pending
   * delivery this resolves — its final status, in one statement. A delivery that is no longer pending
   * is left as it is and not counted. Pruned devices are deleted. Returns the deliveries written and
   * the notifications that finished. (Postgres answers with the few it skipped rather than the many
   * it wrote: a row per delivery was most of what a bulk write sent back.)
   */
  async record(outcomes: readonly Outcome[]): Promise<{ written: Set<string>; finished: Finished[] }> {
    const v = {
      id: [] as string[],
      kind: [] as string[],
      provider: [] as (string | null)[],
      mid: [] as (string | null)[],
      err: [] as (string | null)[],
      attempts: [] as (number | null)[],
      delay: [] as (number | null)[],
      device: [] as (string | null)[],
      possibly: [] as boolean[],
    };
    for (const o of outcomes) {
      v.id.push(o.deliveryId);
      v.kind.push(o.kind);
      v.provider.push(o.providerConfigId);
      v.mid.push(o.kind === 'sent' ? o.providerMessageId : null);
      v.err.push(o.kind === 'sent' || o.kind === 'validated' ? null : o.error);
      v.attempts.push(o.kind === 'retry' ? o.attempts : null);
      v.delay.push(o.kind === 'retry' ? o.delayMs : null);
      v.device.push(o.kind === 'prune' ? o.deviceId : null);
      v.possibly.push(o.kind === 'retry' && o.possiblyDelivered === true);
    }
    const { rows } = await write<{ kind: string; id: string; projectId: string | null; status: string | null }>(this.pool, 'herald_record',
      DELIVERY_SQL.record,
      [arrayLiteral(v.id), arrayLiteral(v.kind), arrayLiteral(v.provider), v.mid, v.err, arrayLiteral(v.attempts), arrayLiteral(v.delay), arrayLiteral(v.device), arrayLiteral(v.possibly.map((b) => (b ? 't' : 'f')))],
    );
    const skipped = new Set<string>();
    const finished: Finished[] = [];
    for (const r of rows) {
      if (r.kind === 'skipped') skipped.add(r.id);
      else finished.push({ notificationId: r.id, projectId: r.projectId!, status: r.status as FinalStatus });
    }
    return { written: new Set(skipped.size ? v.id.filter((id) => !skipped.has(id)) : v.id), finished };
  }

  /**
   * A scheduled notification whose time has come starts like a queued one; a cancel racing it loses,
   * or wins and this answers false (one conditional update each, so never both).
   */
  async start(notificationId: string): Promise<boolean> {
    const { rows } = await query<{ id: string }>(this.pool, 'herald_start',
      DELIVERY_SQL.start,
      [notificationId],
    );
    return rows.length > 0;
  }
}
