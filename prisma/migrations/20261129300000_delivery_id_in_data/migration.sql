-- Whether each message carries its delivery's id in `data` (`herald_delivery_id`), which engagement
-- events name (docs/engagement.md). On unless a project turns it off; a project without a settings
-- row has the default.
ALTER TABLE "ProjectSettings" ADD COLUMN "deliveryIdInData" BOOLEAN NOT NULL DEFAULT true;
