-- Local-time delivery and quiet hours (docs/delivery.md#local-time-and-quiet-hours).

-- A project's settings: one row per project, made on its first write; a project without a row has
-- the defaults. A new setting is a new column with a default.
CREATE TABLE "ProjectSettings" (
  "projectId" UUID NOT NULL,
  "defaultTimezone" TEXT NOT NULL DEFAULT 'UTC',
  "quietHoursStart" TEXT,
  "quietHoursEnd" TEXT,
  "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  CONSTRAINT "ProjectSettings_pkey" PRIMARY KEY ("projectId"),
  CONSTRAINT "ProjectSettings_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project"("id") ON DELETE CASCADE ON UPDATE CASCADE,
  -- Both ends of the window or neither.
  CONSTRAINT "ProjectSettings_quietHours_check" CHECK (("quietHoursStart" IS NULL) = ("quietHoursEnd" IS NULL))
);

-- How a notification's deliveries are timed, fixed when it is accepted: the local time asked for,
-- the project's default zone and quiet hours then, and whether quiet hours apply to it. NULL: every
-- delivery goes when planned (no local time, no quiet hours).
ALTER TABLE "Notification"
  ADD COLUMN "timing" JSONB,
  -- Devices whose delivery time was computed in the project's default zone (they have none).
  ADD COLUMN "defaultZoneDevices" INTEGER NOT NULL DEFAULT 0;

-- A delivery held for its local time or until quiet hours end: not sent before this.
ALTER TABLE "Delivery" ADD COLUMN "notBefore" TIMESTAMPTZ(3);
