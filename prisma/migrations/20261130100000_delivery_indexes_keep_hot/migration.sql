-- The staged rollout's two indexes named "status" and "nextAttemptAt", which the worker's claim and
-- outcome writes change: Postgres can update a row in place (HOT, no index touched) only when no
-- index references a column the update changes, so every delivery's writes had to insert new entries
-- into every index of "Delivery" (measured: 0 % HOT, 100 % without them). A held row is now found by
-- a column of its own, written at insert and cleared once, at the stage's release.
ALTER TABLE "Delivery" ADD COLUMN "heldForStage" SMALLINT;
UPDATE "Delivery" SET "heldForStage" = "rolloutStage" WHERE "nextAttemptAt" = '9999-12-31T00:00:00Z' AND "status" = 'pending';
DROP INDEX "Delivery_held_for_stage_idx";
DROP INDEX "Delivery_rollout_stage_idx";
CREATE INDEX "Delivery_held_for_stage_idx" ON "Delivery" ("notificationId", "heldForStage", "id") WHERE "heldForStage" IS NOT NULL;
CREATE INDEX "Delivery_rollout_stage_idx" ON "Delivery" ("notificationId", "rolloutStage") WHERE "rolloutStage" IS NOT NULL;

-- A timed broadcast's rows due at a moment (fan-out.ts releaseDue): read through the moment, not by a
-- walk of every row of the broadcast at each moment. "notBefore" is written once, when the row is planned.
CREATE INDEX "Delivery_not_before_idx" ON "Delivery" ("notificationId", "notBefore", "id") WHERE "notBefore" IS NOT NULL;
