-- Engagement: what an app reports about a delivered message (received, opened, clicked, dismissed),
-- and the counters that funnels and daily series are read from (docs/engagement.md). Counters are
-- written when events arrive and when notifications finish: no read counts deliveries or events.

-- One event per (delivery, type): a repeated report changes nothing.
CREATE TABLE "DeliveryEvent" (
  "deliveryId" UUID NOT NULL,
  "type" TEXT NOT NULL,
  "projectId" UUID NOT NULL,
  "notificationId" UUID NOT NULL,
  -- When it happened on the device (as reported; the time it arrived when not).
  "at" TIMESTAMPTZ(3) NOT NULL,
  -- The action the user took (e.g. a notification button), as the app names it.
  "action" TEXT,
  "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  CONSTRAINT "DeliveryEvent_pkey" PRIMARY KEY ("deliveryId", "type"),
  CONSTRAINT "DeliveryEvent_type_check" CHECK ("type" IN ('received', 'opened', 'clicked', 'dismissed')),
  CONSTRAINT "DeliveryEvent_notificationId_fkey" FOREIGN KEY ("notificationId") REFERENCES "Notification"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
-- A notification's events, for its export (and for the cascade when it is deleted).
CREATE INDEX "DeliveryEvent_notificationId_idx" ON "DeliveryEvent" ("notificationId");

-- A notification's funnel: one row, written by event ingestion only (the worker never touches it).
CREATE TABLE "NotificationEngagement" (
  "notificationId" UUID NOT NULL,
  "projectId" UUID NOT NULL,
  "received" INTEGER NOT NULL DEFAULT 0,
  "opened" INTEGER NOT NULL DEFAULT 0,
  "clicked" INTEGER NOT NULL DEFAULT 0,
  "dismissed" INTEGER NOT NULL DEFAULT 0,
  CONSTRAINT "NotificationEngagement_pkey" PRIMARY KEY ("notificationId"),
  CONSTRAINT "NotificationEngagement_notificationId_fkey" FOREIGN KEY ("notificationId") REFERENCES "Notification"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- Daily counters per template and per analytics label, by the UTC day the notification was due
-- (its `sendAt`, else its creation): each send's events count on the day of the send.
CREATE TABLE "EngagementDaily" (
  "projectId" UUID NOT NULL,
  "dimension" TEXT NOT NULL,
  "key" TEXT NOT NULL,
  "day" DATE NOT NULL,
  "sent" INTEGER NOT NULL DEFAULT 0,
  "delivered" INTEGER NOT NULL DEFAULT 0,
  "received" INTEGER NOT NULL DEFAULT 0,
  "opened" INTEGER NOT NULL DEFAULT 0,
  "clicked" INTEGER NOT NULL DEFAULT 0,
  "dismissed" INTEGER NOT NULL DEFAULT 0,
  CONSTRAINT "EngagementDaily_pkey" PRIMARY KEY ("projectId", "dimension", "key", "day"),
  CONSTRAINT "EngagementDaily_dimension_check" CHECK ("dimension" IN ('template', 'label')),
  CONSTRAINT "EngagementDaily_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- Sent and delivered are counted once per notification, when it reaches a final status: one
-- statement-level trigger, so that every path that finishes a notification (the delivery write, the
-- planner, the sweeper) counts it, and the worker's statements carry no extra work otherwise. Rows
-- are upserted in key order, as event ingestion does, so that concurrent writers never deadlock.
-- Dry runs reach no device and are not counted.
CREATE FUNCTION "herald_engagement_finished"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "EngagementDaily" AS e ("projectId", "dimension", "key", "day", "sent", "delivered")
  SELECT n."projectId", k."dimension", k."key", (coalesce(n."sendAt", n."createdAt") AT TIME ZONE 'UTC')::date,
         sum(n."sent" + n."failed")::int, sum(n."sent")::int
  FROM new_rows n
  JOIN old_rows o ON o."id" = n."id"
  CROSS JOIN LATERAL (VALUES ('template', n."templateId"::text), ('label', n."options" ->> 'analyticsLabel')) AS k("dimension", "key")
  WHERE o."status" IN ('queued', 'processing', 'scheduled')
    AND n."status" IN ('completed', 'partially_failed', 'failed')
    AND NOT n."dryRun" AND n."sent" + n."failed" > 0 AND k."key" IS NOT NULL
  GROUP BY 1, 2, 3, 4
  ORDER BY 1, 2, 3, 4
  ON CONFLICT ("projectId", "dimension", "key", "day") DO UPDATE SET
    "sent" = e."sent" + excluded."sent",
    "delivered" = e."delivered" + excluded."delivered";
  RETURN NULL;
END
$$;

CREATE TRIGGER "Notification_engagement_finished" AFTER UPDATE ON "Notification"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "herald_engagement_finished"();
