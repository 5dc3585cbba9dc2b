-- The audit log: one entry per change, written in the transaction of the change (docs/audit.md).
-- No foreign key to "Project": a project's entries outlive it (its deletion is an entry too).
CREATE TABLE "AuditEntry" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "projectId" UUID NOT NULL,
    -- The entry's place in its project's chain, from 1; set by the insert trigger.
    "number" BIGINT NOT NULL DEFAULT 0,
    "actorType" TEXT NOT NULL,
    "actorId" TEXT,
    "actorLabel" TEXT,
    "action" TEXT NOT NULL,
    "targetType" TEXT NOT NULL,
    "targetId" TEXT,
    "changes" JSONB NOT NULL DEFAULT '{}',
    "ip" TEXT,
    "userAgent" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    -- SHA-256 over the previous entry's hash and this entry's fields; set by the insert trigger.
    "hash" TEXT NOT NULL DEFAULT '',
    CONSTRAINT "AuditEntry_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "AuditEntry_projectId_number_key" ON "AuditEntry"("projectId", "number");
CREATE INDEX "AuditEntry_projectId_createdAt_idx" ON "AuditEntry"("projectId", "createdAt");

-- Where a project's chain starts after the retention job removed its oldest entries: the number and
-- hash of the last entry removed.
CREATE TABLE "AuditAnchor" (
    "projectId" UUID NOT NULL,
    "number" BIGINT NOT NULL,
    "hash" TEXT NOT NULL,
    CONSTRAINT "AuditAnchor_pkey" PRIMARY KEY ("projectId")
);

-- The hash of an entry given the previous one's ('' for the first): SHA-256 of a JSON array of every
-- field (jsonb's text form is canonical: one spelling per value).
CREATE FUNCTION herald_audit_hash(prev TEXT, e "AuditEntry") RETURNS TEXT LANGUAGE sql IMMUTABLE AS $$
  SELECT encode(sha256(convert_to(jsonb_build_array(
    prev, e."id", e."projectId", e."number", e."actorType", e."actorId", e."actorLabel", e."action",
    e."targetType", e."targetId", e."changes", e."ip", e."userAgent",
    to_char(e."createdAt" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
  )::text, 'UTF8')), 'hex')
$$;

-- Chains each new entry to its project's previous one. Entries of one project are inserted one at a
-- time (a transaction-scoped advisory lock), so the chain has no forks.
CREATE FUNCTION herald_audit_chain() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  prev RECORD;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('herald-audit:' || NEW."projectId"::text, 0));
  SELECT "number", "hash" INTO prev FROM "AuditEntry" WHERE "projectId" = NEW."projectId" ORDER BY "number" DESC LIMIT 1;
  IF NOT FOUND THEN
    SELECT "number", "hash" INTO prev FROM "AuditAnchor" WHERE "projectId" = NEW."projectId";
  END IF;
  NEW."number" := COALESCE(prev."number", 0) + 1;
  NEW."createdAt" := date_trunc('milliseconds', clock_timestamp());
  NEW."hash" := herald_audit_hash(COALESCE(prev."hash", ''), NEW);
  RETURN NEW;
END $$;

CREATE TRIGGER "AuditEntry_chain" BEFORE INSERT ON "AuditEntry" FOR EACH ROW EXECUTE FUNCTION herald_audit_chain();

-- Append-only: UPDATE, DELETE and TRUNCATE are refused, but for the retention job's DELETE, which sets
-- herald.audit_retention = 'on' for its own transaction.
CREATE FUNCTION herald_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND current_setting('herald.audit_retention', true) = 'on' THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'audit entries are append-only (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
END $$;

CREATE TRIGGER "AuditEntry_append_only" BEFORE UPDATE OR DELETE ON "AuditEntry" FOR EACH ROW EXECUTE FUNCTION herald_audit_append_only();
CREATE TRIGGER "AuditEntry_no_truncate" BEFORE TRUNCATE ON "AuditEntry" FOR EACH STATEMENT EXECUTE FUNCTION herald_audit_append_only();
