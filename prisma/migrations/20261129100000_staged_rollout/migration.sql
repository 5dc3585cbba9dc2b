-- Staged rollouts (docs/audiences.md#staged-rollout): a broadcast sent a stage at a time, halted by
-- itself when a stage's failures or invalid tokens cross a bound.
ALTER TYPE "NotificationStatus" ADD VALUE IF NOT EXISTS 'halted';

-- The rollout as sent, with its progress: current stage, each finished stage's figures, the halt.
ALTER TABLE "Notification" ADD COLUMN "rollout" JSONB;

-- The stage a broadcast's delivery belongs to (null: not a staged rollout). A later stage's
-- deliveries are planned with the first and held (`nextAttemptAt` = infinity) until their stage starts.
ALTER TABLE "Delivery" ADD COLUMN "rolloutStage" SMALLINT;
