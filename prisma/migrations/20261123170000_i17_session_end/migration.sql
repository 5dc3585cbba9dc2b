-- An access token names its session (the refresh-token family it was issued with). Logout, a reused
-- refresh token, a password reset and (for the other sessions) a password change end sessions: their
-- access tokens are refused from the next request on, not at their expiry.
ALTER TABLE "RefreshToken" ADD COLUMN "sessionEndedAt" TIMESTAMPTZ(3);
