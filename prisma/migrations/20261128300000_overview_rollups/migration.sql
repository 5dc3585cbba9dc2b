-- Roll-ups the project overview reads instead of aggregating raw rows per request
-- (docs/decisions/overview-rollups.md): per project and UTC hour of the notifications' creation, the
-- notifications (dry runs left out) and their sent and failed devices; per project and platform, the
-- registered devices. Statement triggers keep them in the transaction of every write, so they are
-- exact whichever path writes. Each connection adds to its own `slot` of a key (pg_backend_pid() % 8),
-- so that concurrent writers of one project do not queue on one row; readers sum the slots.

CREATE TABLE "ProjectActivity" (
    "projectId" UUID NOT NULL,
    "hour" TIMESTAMPTZ(3) NOT NULL,
    "slot" SMALLINT NOT NULL,
    "notifications" INTEGER NOT NULL DEFAULT 0,
    "sent" INTEGER NOT NULL DEFAULT 0,
    "failed" INTEGER NOT NULL DEFAULT 0,
    CONSTRAINT "ProjectActivity_pkey" PRIMARY KEY ("projectId", "hour", "slot"),
    CONSTRAINT "ProjectActivity_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

CREATE TABLE "ProjectDeviceCount" (
    "projectId" UUID NOT NULL,
    "platform" TEXT NOT NULL,
    "slot" SMALLINT NOT NULL,
    "count" INTEGER NOT NULL DEFAULT 0,
    CONSTRAINT "ProjectDeviceCount_pkey" PRIMARY KEY ("projectId", "platform", "slot"),
    CONSTRAINT "ProjectDeviceCount_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

CREATE FUNCTION "herald_activity_insert"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "ProjectActivity" AS a ("projectId", "hour", "slot", "notifications", "sent", "failed")
  SELECT "projectId", date_trunc('hour', "createdAt", 'UTC'), pg_backend_pid() % 8, count(*), sum("sent"), sum("failed")
  FROM inserted WHERE NOT "dryRun" GROUP BY 1, 2 ORDER BY 1, 2
  ON CONFLICT ("projectId", "hour", "slot") DO UPDATE SET
    "notifications" = a."notifications" + excluded."notifications",
    "sent" = a."sent" + excluded."sent",
    "failed" = a."failed" + excluded."failed";
  RETURN NULL;
END
$$;

-- An update adds the difference it made (most statements change no counter and write nothing).
CREATE FUNCTION "herald_activity_update"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "ProjectActivity" AS a ("projectId", "hour", "slot", "notifications", "sent", "failed")
  SELECT "projectId", "hour", pg_backend_pid() % 8, sum("n"), sum("s"), sum("f") FROM (
    SELECT "projectId", date_trunc('hour', "createdAt", 'UTC') AS "hour", -1 AS "n", -"sent" AS "s", -"failed" AS "f" FROM old_rows WHERE NOT "dryRun"
    UNION ALL
    SELECT "projectId", date_trunc('hour', "createdAt", 'UTC'), 1, "sent", "failed" FROM new_rows WHERE NOT "dryRun"
  ) d GROUP BY 1, 2 HAVING sum("n") <> 0 OR sum("s") <> 0 OR sum("f") <> 0 ORDER BY 1, 2
  ON CONFLICT ("projectId", "hour", "slot") DO UPDATE SET
    "notifications" = a."notifications" + excluded."notifications",
    "sent" = a."sent" + excluded."sent",
    "failed" = a."failed" + excluded."failed";
  RETURN NULL;
END
$$;

CREATE TRIGGER "Notification_activity_insert" AFTER INSERT ON "Notification"
  REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION "herald_activity_insert"();
CREATE TRIGGER "Notification_activity_update" AFTER UPDATE ON "Notification"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "herald_activity_update"();
-- Deleting notifications (retention, a project deleted) leaves the activity as it happened: the
-- overview shows what was sent, not what is still kept.

-- Devices: inserts and updates add to this connection's slot; a delete subtracts from the key's
-- lowest slot that exists (only the sum of the slots means anything) and never inserts, so that the
-- devices a deleted project takes along find its counts gone or going, not a foreign key to break.
CREATE FUNCTION "herald_device_count_add"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "ProjectDeviceCount" AS c ("projectId", "platform", "slot", "count")
  SELECT "projectId", "platform", pg_backend_pid() % 8, count(*) FROM added GROUP BY 1, 2 ORDER BY 1, 2
  ON CONFLICT ("projectId", "platform", "slot") DO UPDATE SET "count" = c."count" + excluded."count";
  RETURN NULL;
END
$$;

CREATE FUNCTION "herald_device_count_update"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "ProjectDeviceCount" AS c ("projectId", "platform", "slot", "count")
  SELECT "projectId", "platform", pg_backend_pid() % 8, sum("n") FROM (
    SELECT "projectId", "platform", 1 AS "n" FROM new_rows
    UNION ALL
    SELECT "projectId", "platform", -1 FROM old_rows
  ) d GROUP BY 1, 2 HAVING sum("n") <> 0 ORDER BY 1, 2
  ON CONFLICT ("projectId", "platform", "slot") DO UPDATE SET "count" = c."count" + excluded."count";
  RETURN NULL;
END
$$;

CREATE FUNCTION "herald_device_count_remove"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "ProjectDeviceCount" c SET "count" = c."count" - d."n"
  FROM (SELECT "projectId", "platform", count(*)::int AS "n" FROM removed GROUP BY 1, 2) d
  WHERE c."projectId" = d."projectId" AND c."platform" = d."platform"
    AND c."slot" = (SELECT min(s."slot") FROM "ProjectDeviceCount" s WHERE s."projectId" = d."projectId" AND s."platform" = d."platform");
  RETURN NULL;
END
$$;

CREATE TRIGGER "Device_count_insert" AFTER INSERT ON "Device"
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION "herald_device_count_add"();
CREATE TRIGGER "Device_count_update" AFTER UPDATE ON "Device"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "herald_device_count_update"();
CREATE TRIGGER "Device_count_delete" AFTER DELETE ON "Device"
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION "herald_device_count_remove"();

-- What is there already: every device, and the notifications of the last eight days (the overview
-- reads seven).
INSERT INTO "ProjectDeviceCount" ("projectId", "platform", "slot", "count")
SELECT "projectId", "platform", 0, count(*) FROM "Device" GROUP BY 1, 2;
INSERT INTO "ProjectActivity" ("projectId", "hour", "slot", "notifications", "sent", "failed")
SELECT "projectId", date_trunc('hour', "createdAt", 'UTC'), 0, count(*), sum("sent"), sum("failed")
FROM "Notification" WHERE NOT "dryRun" AND "createdAt" >= now() - interval '8 days' GROUP BY 1, 2;
