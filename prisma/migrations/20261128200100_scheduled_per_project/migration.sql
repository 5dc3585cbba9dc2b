-- A project's scheduled notifications are counted at every scheduled send (SCHEDULED_PER_PROJECT):
-- through this partial index, the count reads only that project's scheduled rows.
CREATE INDEX "Notification_projectId_scheduled_idx" ON "Notification" ("projectId") WHERE "status" = 'scheduled';

-- Scheduled sends due later than SCHEDULE_AHEAD_MS have no job yet ("enqueuedAt" null): the sweeper
-- finds the ones coming due through this partial index.
CREATE INDEX "Notification_sendAt_unqueued_idx" ON "Notification" ("sendAt") WHERE "status" = 'scheduled' AND "enqueuedAt" IS NULL;
