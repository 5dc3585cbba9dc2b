-- The rollout monitor's reads of a staged rollout's deliveries (apps/worker/src/delivery/rollout.ts).
-- A stage's held deliveries, found directly when it starts (a later stage's only: the rest never match).
CREATE INDEX "Delivery_held_for_stage_idx" ON "Delivery" ("notificationId", "rolloutStage", "id") WHERE "nextAttemptAt" = '9999-12-31T00:00:00Z';

-- Whether a stage still has pending deliveries, and its figures once it has none: a staged rollout's rows only.
CREATE INDEX "Delivery_rollout_stage_idx" ON "Delivery" ("notificationId", "rolloutStage", "status") WHERE "rolloutStage" IS NOT NULL;
