import type { AuditAction } from '@herald/schemas';
import type { Prisma } from './generated/prisma/client';

/** Who made a change, as the audit log names them. */
export type AuditActor = { type: 'user'; id: string; email: string } | { type: 'apiKey'; id: string; name: string } | { type: 'system' };

/** Who made the change and from where: a request's, handed by the route to the service. */
export interface AuditSource {
  actor: AuditActor;
  ip: string | null;
  userAgent: string | null;
}

/** The value a secret field's change is recorded as: never the secret itself. */
export const SECRET_CHANGED = 'changed' as const;

export type AuditChanges = Record<string, { before: unknown; after: unknown } | typeof SECRET_CHANGED>;

export interface AuditEvent {
  projectId: string;
  action: AuditAction;
  target: { type: string; id: string | null };
  changes?: AuditChanges;
}

/** Anything that can run a statement in the change's transaction (a Prisma transaction client). */
export type AuditWriter = Pick<Prisma.TransactionClient, '$executeRaw'>;

const comparable = (v: unknown) => JSON.stringify(v === undefined ? null : v);

/**
 * The fields that differ between `before` and `after` (a creation: `before` is `null`; a deletion:
 * `after` is `null`), each as `{ before, after }`; a field listed in `secrets` only as "changed".
 * Dates are compared and recorded as ISO 8601 strings.
 */
export function auditChanges<T extends object>(before: T | null, after: T | null, fields: ReadonlyArray<keyof T & string>, secrets: ReadonlyArray<keyof T & string> = []): AuditChanges {
  const changes: AuditChanges = {};
  const value = (row: T | null, field: keyof T) => {
    const v = row?.[field];
    return v instanceof Date ? v.toISOString() : (v ?? null);
  };
  for (const field of [...fields, ...secrets]) {
    const [b, a] = [value(before, field), value(after, field)];
    if (comparable(b) === comparable(a)) continue;
    changes[field] = secrets.includes(field) ? SECRET_CHANGED : { before: b, after: a };
  }
  return changes;
}

function actorColumns(actor: AuditActor): [string, string | null, string | null] {
  if (actor.type === 'user') return ['user', actor.id, actor.email];
  if (actor.type === 'apiKey') return ['apiKey', actor.id, actor.name];
  return ['system', null, null];
}

/**
 * Writes one audit entry. Call it with the transaction client of the change itself, so that the change
 * and its entry commit together or not at all. The database numbers the entry and chains its hash to
 * the project's previous entry (prisma/migrations/*_audit_log).
 */
export async function writeAudit(tx: AuditWriter, source: AuditSource, event: AuditEvent): Promise<void> {
  const [actorType, actorId, actorLabel] = actorColumns(source.actor);
  await tx.$executeRaw`
    INSERT INTO "AuditEntry" ("projectId", "actorType", "actorId", "actorLabel", "action", "targetType", "targetId", "changes", "ip", "userAgent")
    VALUES (${event.projectId}::uuid, ${actorType}, ${actorId}, ${actorLabel}, ${event.action}, ${event.target.type}, ${event.target.id},
            ${JSON.stringify(event.changes ?? {})}::jsonb, ${source.ip}, ${source.userAgent})`;
}

/** The source of a change Herald makes on its own (a job, a script): the system actor, no address. */
export const SYSTEM_AUDIT_SOURCE: AuditSource = { actor: { type: 'system' }, ip: null, userAgent: null };
