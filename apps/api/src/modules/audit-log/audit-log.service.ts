import type { AuditEntry, Db, Prisma } from '@herald/db';
import type { z } from 'zod';
import type { auditLogQuery } from '@herald/schemas';

type Filters = z.infer<typeof auditLogQuery>;

/** Entries an export holds at most: a larger one is narrowed by its time range (docs/audit.md). */
export const EXPORT_MAX_ENTRIES = 100_000;
const EXPORT_BATCH = 1_000;

function toEntry(e: AuditEntry) {
  const actor =
    e.actorType === 'user'
      ? { type: 'user' as const, id: e.actorId, email: e.actorLabel ?? undefined }
      : e.actorType === 'apiKey'
        ? { type: 'apiKey' as const, id: e.actorId, name: e.actorLabel ?? undefined }
        : { type: 'system' as const, id: null };
  return {
    id: e.id,
    number: Number(e.number),
    actor,
    action: e.action,
    target: { type: e.targetType, id: e.targetId },
    changes: e.changes as Record<string, unknown>,
    ip: e.ip,
    userAgent: e.userAgent,
    createdAt: e.createdAt.toISOString(),
    hash: e.hash,
  };
}

function where(projectId: string, f: Filters): Prisma.AuditEntryWhereInput {
  return {
    projectId,
    ...(f.actor && (f.actor === 'system' ? { actorType: 'system' } : { actorId: f.actor.toLowerCase() })),
    ...(f.actorType && { actorType: f.actorType }),
    ...(f.action && { action: f.action }),
    ...(f.targetType && { targetType: f.targetType }),
    ...(f.targetId && { targetId: f.targetId.toLowerCase() }),
    ...((f.from || f.to) && { createdAt: { ...(f.from && { gte: new Date(f.from) }), ...(f.to && { lte: new Date(f.to) }) } }),
  };
}

interface VerifyRow {
  entries: bigint;
  id: string | null;
  number: bigint | null;
  gap: boolean | null;
}

/** A project's audit log: read, exported and verified (entries are written by the services, `writeAudit`). */
export class AuditLogService {
  constructor(private readonly db: Db) {}

  /** Newest first, `limit` at a time; `cursor` is the number of the last entry of the page before. */
  async list(projectId: string, q: Filters & { cursor?: string; limit: number }) {
    const rows = await this.db.auditEntry.findMany({
      where: { ...where(projectId, q), ...(q.cursor && { number: { lt: BigInt(q.cursor) } }) },
      orderBy: { number: 'desc' },
      take: q.limit + 1,
    });
    const page = rows.slice(0, q.limit);
    return { data: page.map(toEntry), nextCursor: rows.length > q.limit ? String(page[page.length - 1].number) : null };
  }

  /** The filtered entries as JSON Lines, oldest first (at most EXPORT_MAX_ENTRIES). */
  async exportLines(projectId: string, f: Filters): Promise<string> {
    const lines: string[] = [];
    let after = 0n;
    while (lines.length < EXPORT_MAX_ENTRIES) {
      const rows = await this.db.auditEntry.findMany({
        where: { ...where(projectId, f), number: { gt: after } },
        orderBy: { number: 'asc' },
        take: Math.min(EXPORT_BATCH, EXPORT_MAX_ENTRIES - lines.length),
      });
      for (const row of rows) lines.push(JSON.stringify(toEntry(row)));
      if (rows.length < EXPORT_BATCH) break;
      after = rows[rows.length - 1].number;
    }
    return lines.length ? `${lines.join('\n')}\n` : '';
  }

  /**
   * Recomputes every entry's hash from its fields and the previous entry's stored hash (the chain's
   * anchor for the first one left after retention), in the database that computed them, and checks
   * that the numbers run without a gap. The first entry that fails either is named.
   */
  async verify(projectId: string) {
    const [row] = await this.db.$queryRaw<VerifyRow[]>`
      WITH anchor AS (SELECT "number", "hash" FROM "AuditAnchor" WHERE "projectId" = ${projectId}::uuid),
      checked AS (
        SELECT a."id", a."number",
               a."hash" <> herald_audit_hash(COALESCE(lag(a."hash") OVER w, (SELECT "hash" FROM anchor), ''), a) AS "altered",
               a."number" <> COALESCE(lag(a."number") OVER w, (SELECT "number" FROM anchor), 0) + 1 AS "gap"
        FROM "AuditEntry" a WHERE a."projectId" = ${projectId}::uuid
        WINDOW w AS (ORDER BY a."number")
      )
      SELECT (SELECT count(*) FROM checked) AS "entries", b."id", b."number", b."gap"
      FROM (SELECT 1) one
      LEFT JOIN LATERAL (SELECT "id", "number", "gap" FROM checked WHERE "altered" OR "gap" ORDER BY "number" LIMIT 1) b ON true`;
    const entries = Number(row.entries);
    if (!row.id) return { valid: true, entries };
    return { valid: false, entries, brokenAt: { id: row.id, number: Number(row.number), reason: row.gap ? ('entries missing before it' as const) : ('altered' as const) } };
  }
}
