-- A pending delivery is claimed by the job that sends it, so that two jobs never send it at once
-- (a retry queued again by the sweeper while the original is still waiting in a backlog, say).
ALTER TABLE "Delivery" ADD COLUMN "claimedBy" TEXT;
ALTER TABLE "Delivery" ADD COLUMN "claimedUntil" TIMESTAMPTZ(3);
