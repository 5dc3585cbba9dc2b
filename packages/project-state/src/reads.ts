import type { SqlPool } from '@herald/db';

/**
 * The project-scoped reads that the caches load: each one round trip through node-postgres (these
 * run on the send and delivery paths, where Prisma's per-query work shows), a named statement that
 * each connection parses once.
 */

/** An API key with what a request needs of its project. */
export interface ApiKeyRow {
  id: string;
  enabled: boolean;
  /** The key's own name (the audit log names keys by it). */
  keyName: string;
  /** What the key may do (API_KEY_SCOPES of @herald/schemas). */
  scopes: string[];
  /** After this the key is refused; null: never. */
  expiresAt: Date | null;
  projectId: string;
  /** The project's name and owner, so that a key's caller needs no second read. */
  name: string;
  ownerId: string;
}

/** What sending needs of a template: its text (its variables, what the message is built from), data and default options. */
export interface TemplateRow {
  id: string;
  updatedAt: Date;
  title: string;
  body: string;
  /** The static payload. */
  data: unknown;
  /** Default delivery options, merged under the send's. */
  options: unknown;
}

/** Whether the project can send at all. */
export interface SendReadiness {
  /** The push config's `enabled`; `null` when the project has none. */
  pushEnabled: boolean | null;
  /** At least one enabled provider. */
  hasEnabledProvider: boolean;
}

/** A project's settings (docs/api.md#project-settings), the defaults when it never wrote any. */
export interface ProjectSettingsRow {
  defaultTimezone: string;
  quietHours: { start: string; end: string } | null;
  /** Whether each message carries its delivery's id in `data` (`herald_delivery_id`). */
  deliveryIdInData: boolean;
}

export const DEFAULT_SETTINGS: ProjectSettingsRow = { defaultTimezone: 'UTC', quietHours: null, deliveryIdInData: true };

export class ProjectReads {
  constructor(private readonly pool: SqlPool) {}

  /** The API key with this SHA-256, in whichever project it is. */
  async apiKey(keyHash: string): Promise<ApiKeyRow | null> {
    const { rows } = await this.pool.query<ApiKeyRow>({
      name: 'herald_apiKey',
      text: `SELECT k."id", k."name" AS "keyName", k."enabled", k."scopes", k."expiresAt", k."projectId", p."name", p."ownerId"
             FROM "ApiKey" k JOIN "Project" p ON p."id" = k."projectId"
             WHERE k."keyHash" = $1`,
      values: [keyHash],
    });
    return rows[0] ?? null;
  }

  /** A template of the project, or null. */
  async template(projectId: string, templateId: string): Promise<TemplateRow | null> {
    const { rows } = await this.pool.query<TemplateRow>({
      name: 'herald_template',
      text: `SELECT "id", "updatedAt", "title", "body", "data", "options" FROM "PushTemplate" WHERE "id" = $1::uuid AND "projectId" = $2::uuid`,
      values: [templateId, projectId],
    });
    return rows[0] ?? null;
  }

  /** The push config's `enabled` and whether an enabled provider exists, in one read. */
  async sendReadiness(projectId: string): Promise<SendReadiness> {
    const { rows } = await this.pool.query<SendReadiness>({
      name: 'herald_sendReadiness',
      text: `SELECT (SELECT c."enabled" FROM "PushConfig" c WHERE c."projectId" = $1::uuid) AS "pushEnabled",
                    EXISTS (SELECT 1 FROM "ProviderConfig" p WHERE p."projectId" = $1::uuid AND p."enabled") AS "hasEnabledProvider"`,
      values: [projectId],
    });
    return rows[0];
  }

  /** The project's push config's `enabled`, or null without a push config. */
  async pushConfigEnabled(projectId: string): Promise<boolean | null> {
    const { rows } = await this.pool.query<{ enabled: boolean }>({
      name: 'herald_pushConfigEnabled',
      text: `SELECT "enabled" FROM "PushConfig" WHERE "projectId" = $1::uuid`,
      values: [projectId],
    });
    return rows[0]?.enabled ?? null;
  }

  /** The project's settings, or the defaults. */
  async settings(projectId: string): Promise<ProjectSettingsRow> {
    const { rows } = await this.pool.query<{ defaultTimezone: string; start: string | null; end: string | null; deliveryIdInData: boolean }>({
      name: 'herald_settings',
      text: `SELECT "defaultTimezone", "quietHoursStart" AS "start", "quietHoursEnd" AS "end", "deliveryIdInData" FROM "ProjectSettings" WHERE "projectId" = $1::uuid`,
      values: [projectId],
    });
    const row = rows[0];
    if (!row) return DEFAULT_SETTINGS;
    return { defaultTimezone: row.defaultTimezone, quietHours: row.start && row.end ? { start: row.start, end: row.end } : null, deliveryIdInData: row.deliveryIdInData };
  }
}
