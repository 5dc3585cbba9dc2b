-- Device attributes (tags, time zone, locale, app version) and segments: saved audience filters.
-- How they are stored was chosen by measuring counts and pages at a million devices
-- (docs/decisions/device-attributes-storage.md).

-- A composite GIN index of the project and the tags needs btree_gin's operator classes for uuid.
-- btree_gin ships with PostgreSQL (contrib) and is a trusted extension: the database owner may create it.
CREATE EXTENSION IF NOT EXISTS btree_gin;

-- The number of keys of a tags object, for the CHECK below (a CHECK may not hold a subquery itself).
CREATE FUNCTION "herald_tag_count"(tags jsonb) RETURNS integer LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT count(*)::integer FROM jsonb_object_keys(tags)
$$;

ALTER TABLE "Device"
  ADD COLUMN "tags" JSONB NOT NULL DEFAULT '{}',
  ADD COLUMN "timezone" TEXT,
  ADD COLUMN "locale" TEXT,
  ADD COLUMN "appVersion" TEXT,
  -- The version's sort key (packages/schemas/src/app-version.ts), compared byte by byte.
  ADD COLUMN "appVersionKey" TEXT COLLATE "C";

-- A device holds at most 50 tags, whichever write merges them. NOT VALID, then VALIDATE: existing
-- rows are checked without blocking writes for the whole scan.
ALTER TABLE "Device" ADD CONSTRAINT "Device_tags_check" CHECK (jsonb_typeof("tags") = 'object' AND "herald_tag_count"("tags") <= 50) NOT VALID;
ALTER TABLE "Device" VALIDATE CONSTRAINT "Device_tags_check";

-- Tag conditions (@>, ?) within one project.
CREATE INDEX "Device_projectId_tags_idx" ON "Device" USING gin ("projectId", "tags");
-- Keyset pages of a project's devices in id order.
CREATE INDEX "Device_projectId_id_idx" ON "Device" ("projectId", "id");
-- `lastSeenAt` and `appVersion` ranges.
CREATE INDEX "Device_projectId_lastSeenAt_idx" ON "Device" ("projectId", "lastSeenAt");
CREATE INDEX "Device_projectId_appVersionKey_idx" ON "Device" ("projectId", "appVersionKey");

CREATE TABLE "Segment" (
    "id" UUID NOT NULL,
    "projectId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "filter" JSONB NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "Segment_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "Segment_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "Segment_projectId_name_key" ON "Segment"("projectId", "name");
