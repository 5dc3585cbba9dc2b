-- Messages as FCM allows them: delivery and platform options (a send's, and a template's defaults),
-- data-only messages, dry runs, personalised bulk and scheduled sends.

-- A scheduled notification waits for its `sendAt`; a canceled one never starts.
ALTER TYPE "NotificationStatus" ADD VALUE 'scheduled';
ALTER TYPE "NotificationStatus" ADD VALUE 'canceled';
-- A dry run's delivery that FCM validated (nothing reached the device).
ALTER TYPE "DeliveryStatus" ADD VALUE 'validated';

-- The template's default options; a send's own options win field by field.
ALTER TABLE "PushTemplate" ADD COLUMN "options" JSONB;

ALTER TABLE "Notification" ADD COLUMN "options" JSONB;
ALTER TABLE "Notification" ADD COLUMN "dataOnly" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "Notification" ADD COLUMN "dryRun" BOOLEAN NOT NULL DEFAULT false;
-- Personalised bulk: each recipient's own variables by user id, merged over `variables` when rendering.
ALTER TABLE "Notification" ADD COLUMN "recipientVariables" JSONB;
ALTER TABLE "Notification" ADD COLUMN "sendAt" TIMESTAMPTZ(3);

-- The sweeper looks for scheduled notifications whose time has passed without a live job.
CREATE INDEX "Notification_status_sendAt_idx" ON "Notification"("status", "sendAt");
