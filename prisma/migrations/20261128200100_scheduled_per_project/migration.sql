-- A project's scheduled notifications are counted at every scheduled send (SCHEDULED_PER_PROJECT):
-- through this partial index, the count reads only that project's scheduled rows. It holds no entry
-- for a notification sent now, so drains do not maintain it. (Sends scheduled far ahead and still
-- without a job are found through the existing ("status", "sendAt") index.)
CREATE INDEX "Notification_projectId_scheduled_idx" ON "Notification" ("projectId") WHERE "status" = 'scheduled';
