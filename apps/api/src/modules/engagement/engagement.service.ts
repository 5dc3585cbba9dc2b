import { AppError, type DeliveryEngagementData, type WebhookEventInput } from '@herald/core';
import { sqlPool, type Db, type SqlPool, type WebhookEvents } from '@herald/db';
import { engagementEvent, type EngagementEvent } from '@herald/schemas';
import { NOTIFICATION_NOT_FOUND } from '../notifications/notifications.service';
import { SERIES_DAYS, type EventsResponse, type RefusalReason } from './engagement.schema';

/** A device's clock may run a little ahead of the server's: an event this far ahead is still now. */
export const FUTURE_TOLERANCE_MS = 5_000;

export const UNKNOWN_DELIVERY = 'No delivery of this project has this id';

interface Found {
  idx: number;
  deliveryId: string;
  type: EngagementEvent['type'];
  at: Date;
  action: string | null;
  status: string;
  sentAt: Date;
  /** `at` is before `sentAt` (compared in Postgres, at its precision). */
  early: boolean;
  notificationId: string;
  userId: string;
  deviceId: string | null;
  platform: string | null;
  inserted: boolean;
}

/**
 * Records a batch of events in one statement: the events of this project's sent deliveries are
 * inserted (one per delivery and type: a repeat is a no-op), and the counters of their notifications
 * and of the daily series move by the events actually inserted. Counters are upserted in key order,
 * as the trigger that counts finished notifications does, so that concurrent batches never deadlock.
 */
const INGEST_SQL = `
WITH input AS (
  SELECT * FROM unnest($2::int[], $3::uuid[], $4::text[], $5::timestamptz[], $6::text[]) AS i("idx", "deliveryId", "type", "at", "action")
), found AS (
  SELECT i."idx", i."deliveryId", i."type", coalesce(i."at", now()) AS "at", i."action",
         d."status"::text AS "status", d."updatedAt" AS "sentAt", d."notificationId", d."userId", d."deviceId", d."platform",
         n."templateId", n."options" ->> 'analyticsLabel' AS "label", (coalesce(n."sendAt", n."createdAt") AT TIME ZONE 'UTC')::date AS "day"
  FROM input i
  JOIN "Delivery" d ON d."id" = i."deliveryId"
  JOIN "Notification" n ON n."id" = d."notificationId" AND n."projectId" = $1::uuid
), fresh AS (
  SELECT DISTINCT ON ("deliveryId", "type") * FROM found
  WHERE "status" = 'sent' AND "at" >= "sentAt"
  ORDER BY "deliveryId", "type", "idx"
), inserted AS (
  INSERT INTO "DeliveryEvent" ("deliveryId", "type", "projectId", "notificationId", "at", "action")
  SELECT "deliveryId", "type", $1::uuid, "notificationId", "at", "action" FROM fresh
  ON CONFLICT DO NOTHING
  RETURNING "deliveryId", "type"
), counted AS (
  SELECT f.* FROM fresh f JOIN inserted x ON x."deliveryId" = f."deliveryId" AND x."type" = f."type"
), funnel AS (
  INSERT INTO "NotificationEngagement" AS e ("notificationId", "projectId", "received", "opened", "clicked", "dismissed")
  SELECT "notificationId", $1::uuid,
    count(*) FILTER (WHERE "type" = 'received'), count(*) FILTER (WHERE "type" = 'opened'),
    count(*) FILTER (WHERE "type" = 'clicked'), count(*) FILTER (WHERE "type" = 'dismissed')
  FROM counted GROUP BY 1 ORDER BY 1
  ON CONFLICT ("notificationId") DO UPDATE SET
    "received" = e."received" + excluded."received", "opened" = e."opened" + excluded."opened",
    "clicked" = e."clicked" + excluded."clicked", "dismissed" = e."dismissed" + excluded."dismissed"
), daily AS (
  INSERT INTO "EngagementDaily" AS e ("projectId", "dimension", "key", "day", "received", "opened", "clicked", "dismissed")
  SELECT $1::uuid, k."dimension", k."key", c."day",
    count(*) FILTER (WHERE c."type" = 'received'), count(*) FILTER (WHERE c."type" = 'opened'),
    count(*) FILTER (WHERE c."type" = 'clicked'), count(*) FILTER (WHERE c."type" = 'dismissed')
  FROM counted c CROSS JOIN LATERAL (VALUES ('template', c."templateId"::text), ('label', c."label")) AS k("dimension", "key")
  WHERE k."key" IS NOT NULL
  GROUP BY 2, 3, 4 ORDER BY 2, 3, 4
  ON CONFLICT ("projectId", "dimension", "key", "day") DO UPDATE SET
    "received" = e."received" + excluded."received", "opened" = e."opened" + excluded."opened",
    "clicked" = e."clicked" + excluded."clicked", "dismissed" = e."dismissed" + excluded."dismissed"
)
SELECT f."idx", f."deliveryId", f."type", f."at", f."action", f."status", f."sentAt", f."notificationId", f."userId", f."deviceId", f."platform",
  f."at" < f."sentAt" AS "early",
  EXISTS (SELECT 1 FROM inserted x WHERE x."deliveryId" = f."deliveryId" AND x."type" = f."type") AS "inserted"
FROM found f`;

const refusal = (index: number, event: unknown, reason: RefusalReason, message: string): EventsResponse['refused'][number] => {
  const e = (event ?? {}) as { deliveryId?: unknown; type?: unknown };
  return {
    index,
    ...(typeof e.deliveryId === 'string' ? { deliveryId: e.deliveryId } : {}),
    ...(typeof e.type === 'string' ? { type: e.type } : {}),
    reason,
    message,
  };
};

const WEBHOOK_TYPES = { opened: 'delivery.opened', clicked: 'delivery.clicked' } as const;

/** UTC calendar day, `YYYY-MM-DD`. */
const isoDay = (d: Date) => d.toISOString().slice(0, 10);

/**
 * Engagement events an app's backend reports, and what they add up to: a notification's funnel and
 * the daily series per template and per analytics label, read from counters (never by counting rows).
 */
export class EngagementService {
  private readonly pool: SqlPool;

  constructor(
    private readonly db: Db,
    /** Emits `delivery.opened` and `delivery.clicked`. */
    private readonly webhookEvents: WebhookEvents,
  ) {
    this.pool = sqlPool(db);
  }

  async ingest(projectId: string, events: unknown[]): Promise<EventsResponse> {
    const refused: EventsResponse['refused'] = [];
    const valid: { index: number; event: EngagementEvent }[] = [];
    const latest = Date.now() + FUTURE_TOLERANCE_MS;
    events.forEach((raw, index) => {
      const parsed = engagementEvent.safeParse(raw);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const path = ['events', index, ...issue.path].join('.');
        refused.push(refusal(index, raw, 'invalid', `${path}: ${issue.message}`));
      } else if (parsed.data.at && Date.parse(parsed.data.at) > latest) refused.push(refusal(index, raw, 'in_future', 'at is in the future'));
      else valid.push({ index, event: parsed.data });
    });

    const found = valid.length ? await this.record(projectId, valid) : [];
    const byIndex = new Map(found.map((f) => [f.idx, f]));
    const accepted: EventsResponse['accepted'] = [];
    const seen = new Set<string>();
    const hooks: WebhookEventInput[] = [];
    for (const { index, event } of valid) {
      const f = byIndex.get(index);
      if (!f) refused.push(refusal(index, event, 'unknown_delivery', UNKNOWN_DELIVERY));
      else if (f.status !== 'sent') refused.push(refusal(index, event, 'not_sent', `The message was not sent (the delivery is ${f.status})`));
      else if (f.early) refused.push(refusal(index, event, 'before_sent', `at is before the message was sent (${f.sentAt.toISOString()})`));
      else {
        const key = `${f.deliveryId}:${f.type}`;
        accepted.push({ index, deliveryId: f.deliveryId, type: f.type, duplicate: !f.inserted || seen.has(key) });
        if (!seen.has(key) && (f.type === 'opened' || f.type === 'clicked')) hooks.push(webhookEvent(f, WEBHOOK_TYPES[f.type]));
        seen.add(key);
      }
    }
    // Duplicates are emitted again too: the dedupe key makes that a no-op, unless the first request
    // stored its events and then failed before its webhooks were (a retry then emits them).
    if (hooks.length) await this.webhookEvents.emit(projectId, hooks);
    refused.sort((a, b) => a.index - b.index);
    return { accepted, refused };
  }

  private async record(projectId: string, valid: { index: number; event: EngagementEvent }[]): Promise<Found[]> {
    const { rows } = await this.pool.query<Found>({
      name: 'herald_engagement_ingest',
      text: INGEST_SQL,
      values: [
        projectId,
        valid.map((v) => v.index),
        valid.map((v) => v.event.deliveryId),
        valid.map((v) => v.event.type),
        valid.map((v) => v.event.at ?? null),
        valid.map((v) => v.event.action ?? null),
      ],
    });
    return rows;
  }

  /** A notification's finished deliveries, in the order they were planned, each with its events. */
  async deliveryEvents(projectId: string, notificationId: string) {
    const n = await this.db.notification.findFirst({ where: { id: notificationId, projectId }, select: { id: true } });
    if (!n) throw AppError.notFound(NOTIFICATION_NOT_FOUND);
    const rows = await this.db.$queryRaw<{ id: string; userId: string; deviceId: string | null; platform: string | null; status: string; error: string | null; events: { type: string; at: string; action: string | null }[] }[]>`
      SELECT d."id", d."userId", d."deviceId", d."platform", d."status"::text AS "status", d."error",
        coalesce(json_agg(json_build_object('type', e."type", 'at', e."at", 'action', e."action") ORDER BY e."at", e."type") FILTER (WHERE e."type" IS NOT NULL), '[]') AS "events"
      FROM "Delivery" d LEFT JOIN "DeliveryEvent" e ON e."deliveryId" = d."id"
      WHERE d."notificationId" = ${notificationId}::uuid AND d."status" <> 'pending'
      GROUP BY d."id"
      ORDER BY d."createdAt", d."id"`;
    return rows.map((r) => ({ ...r, events: r.events.map((e) => ({ ...e, at: new Date(e.at).toISOString() })) }));
  }

  /** The last 30 UTC days of a template's or a label's counters, oldest first, zeros filled in. */
  async series(projectId: string, dimension: 'template' | 'label', key: string) {
    const today = new Date(`${isoDay(new Date())}T00:00:00Z`);
    const from = new Date(today.getTime() - (SERIES_DAYS - 1) * 86_400_000);
    const rows = await this.db.engagementDaily.findMany({
      where: { projectId, dimension, key, day: { gte: from } },
      select: { day: true, sent: true, delivered: true, opened: true, clicked: true },
    });
    const byDay = new Map(rows.map((r) => [isoDay(r.day), r]));
    const days = Array.from({ length: SERIES_DAYS }, (_, i) => {
      const date = isoDay(new Date(from.getTime() + i * 86_400_000));
      const r = byDay.get(date);
      return { date, sent: r?.sent ?? 0, delivered: r?.delivered ?? 0, opened: r?.opened ?? 0, clicked: r?.clicked ?? 0 };
    });
    return { from: isoDay(from), to: isoDay(today), days };
  }
}

function webhookEvent(f: Found, type: (typeof WEBHOOK_TYPES)[keyof typeof WEBHOOK_TYPES]): WebhookEventInput {
  const data: DeliveryEngagementData = {
    delivery: { id: f.deliveryId, notificationId: f.notificationId, userId: f.userId, deviceId: f.deviceId, platform: f.platform },
    event: { type: f.type as 'opened' | 'clicked', at: f.at.toISOString(), action: f.action },
  };
  return { type, data, dedupeKey: `${type}:${f.deliveryId}` };
}
