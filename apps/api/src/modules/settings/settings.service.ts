import type { Db, ProjectSettings } from '@herald/db';
import type { QuietHoursWindow } from '@herald/schemas';

/** A PUT's fields: what it leaves out keeps its value. */
export interface SettingsUpdate {
  defaultTimezone?: string;
  quietHours?: QuietHoursWindow | null;
}

const DEFAULTS = { defaultTimezone: 'UTC', quietHours: null, updatedAt: null };

const toResponse = (s: ProjectSettings | null) =>
  s
    ? {
        defaultTimezone: s.defaultTimezone,
        quietHours: s.quietHoursStart && s.quietHoursEnd ? { start: s.quietHoursStart, end: s.quietHoursEnd } : null,
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

  /** One upsert: only the fields given change. */
  async update(projectId: string, update: SettingsUpdate) {
    const data = {
      ...(update.defaultTimezone !== undefined ? { defaultTimezone: update.defaultTimezone } : {}),
      ...(update.quietHours !== undefined ? { quietHoursStart: update.quietHours?.start ?? null, quietHoursEnd: update.quietHours?.end ?? null } : {}),
    };
    return toResponse(await this.db.projectSettings.upsert({ where: { projectId }, create: { projectId, ...data }, update: data }));
  }
}
