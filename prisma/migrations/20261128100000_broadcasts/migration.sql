-- Broadcasts: a notification to an audience (a segment, a filter or every device of the project)
-- rather than to named users. The audience is recorded as it was sent (a segment's filter copied, so
-- that editing the segment later does not change a broadcast under way); the fan-out's cursor is the
-- last device id planned, written in the same transaction as that page's deliveries, so a worker that
-- takes a fan-out over continues after it: nothing lost, nothing planned twice.
ALTER TABLE "Notification"
  ADD COLUMN "audience" JSONB,
  ADD COLUMN "ratePerMinute" INTEGER,
  ADD COLUMN "fanoutCursor" UUID,
  ADD COLUMN "fanoutPreviousCursor" UUID,
  ADD COLUMN "fannedOut" BOOLEAN NOT NULL DEFAULT false,
  ADD COLUMN "error" TEXT;
