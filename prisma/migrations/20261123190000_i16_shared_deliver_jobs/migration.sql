-- Sends accepted together share one deliver job: a notification names that job, so that the
-- sweeper can tell whether its work is still queued. NULL: its own job, `deliver-<id>`.
ALTER TABLE "Notification" ADD COLUMN "jobId" TEXT;
