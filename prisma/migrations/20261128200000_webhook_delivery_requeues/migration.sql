-- How often the webhook sweeper queued a delivery's lost attempt again: past a few times it gives up
-- on the delivery, as the delivery sweeper does with a notification's lost work.
ALTER TABLE "WebhookDelivery" ADD COLUMN "requeues" INTEGER NOT NULL DEFAULT 0;
