import { auditChanges, writeAudit, type AuditSource, type Db, type ProjectSettings } from '@herald/db';
import type { QuietHoursWindow } from '@herald/schemas';

/** A PUT's fields: what it leaves out keeps its value. */
export interface SettingsUpdate {
  defaultTimezone?: string;
  quietHours?: QuietHoursWindow | null;
  deliveryIdInData?: boolean;
}

const DEFAULTS = { defaultTimezone: 'UTC', quietHours: null, deliveryIdInData: true, updatedAt: null };
/** A project without a row has the defaults: its first write is audited as a change from them. */
const DEFAULT_ROW = { defaultTimezone: 'UTC', quietHoursStart: null, quietHoursEnd: null, deliveryIdInData: true };
const AUDITED_FIELDS = ['defaultTimezone', 'quietHoursStart', 'quietHoursEnd', 'deliveryIdInData'] as const;

const toResponse = (s: ProjectSettings | null) =>
  s
    ? {
        defaultTimezone: s.defaultTimezone,
        quietHours: s.quietHoursStart && s.quietHoursEnd ? { start: s.quietHoursStart, end: s.quietHoursEnd } : null,
        deliveryIdInData: s.deliveryIdInData,
        updatedAt: s.updatedAt.toISOString(),
      }
    : DEFAULTS;

/**
 * A project's settings: one row per project, made on its first write (until then the defaults
 * apply). Access is checked by the gate before any call.
 */
export class SettingsService {
  constructor(private readonly db: Db) {}

  async get(projectId: string) {
    return toResponse(await this.db.projectSettings.findUnique({ where: { projectId } }));
  }

  /** One upsert: only the fields given change; the audit log gets what did, in the same transaction. */
  async update(projectId: string, update: SettingsUpdate, source: AuditSource) {
    const data = {
      ...(update.defaultTimezone !== undefined ? { defaultTimezone: update.defaultTimezone } : {}),
      ...(update.quietHours !== undefined ? { quietHoursStart: update.quietHours?.start ?? null, quietHoursEnd: update.quietHours?.end ?? null } : {}),
      ...(update.deliveryIdInData !== undefined ? { deliveryIdInData: update.deliveryIdInData } : {}),
    };
    const row = await this.db.$transaction(async (tx) => {
      const before = await tx.projectSettings.findUnique({ where: { projectId } });
      const after = await tx.projectSettings.upsert({ where: { projectId }, create: { projectId, ...data }, update: data });
      const changes = auditChanges(before ?? { ...after, ...DEFAULT_ROW }, after, AUDITED_FIELDS);
      await writeAudit(tx, source, { projectId, action: 'settings.updated', target: { type: 'settings', id: projectId }, changes });
      return after;
    });
    return toResponse(row);
  }
}
