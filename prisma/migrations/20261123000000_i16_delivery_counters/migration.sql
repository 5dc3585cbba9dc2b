-- Deliveries still pending, kept beside the counters: the write that resolves a notification's last
-- pending delivery also sets its final status, in the same statement (no second pass over its rows).
ALTER TABLE "Notification" ADD COLUMN "pendingDeliveries" INTEGER NOT NULL DEFAULT 0;
-- How often the sweeper has queued this notification's lost work again; it gives up after a bound.
ALTER TABLE "Notification" ADD COLUMN "requeues" INTEGER NOT NULL DEFAULT 0;

UPDATE "Notification" n
SET "pendingDeliveries" = (SELECT count(*) FROM "Delivery" d WHERE d."notificationId" = n."id" AND d."status" = 'pending')
WHERE n."status" IN ('queued', 'processing');

-- A running job extends the claims of the rows it still holds (by claimant) while it sends them.
CREATE INDEX "Delivery_claimedBy_pending_idx" ON "Delivery"("claimedBy") WHERE "status" = 'pending';
