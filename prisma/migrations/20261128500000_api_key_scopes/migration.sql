-- API key scopes and expiry. Every existing key gets every scope, so it keeps working.
ALTER TABLE "ApiKey"
  ADD COLUMN "scopes" TEXT[] NOT NULL DEFAULT ARRAY['devices:write', 'devices:read', 'send', 'notifications:read', 'templates:read', 'templates:write', 'events:write']::TEXT[],
  ADD COLUMN "expiresAt" TIMESTAMPTZ(3);
