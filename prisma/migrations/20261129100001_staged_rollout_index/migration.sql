-- Apart from the enum value it names: a new enum value can be used only once its transaction committed.
-- The rollout monitor reads the rollouts in flight; a partial index keeps that read off every other notification.
CREATE INDEX "Notification_rollout_active_idx" ON "Notification" ("id") WHERE "rollout" IS NOT NULL AND "status" IN ('processing', 'halted');
