import type { Db } from '@herald/db';

/**
 * Everything the project cache holds, and the one place it is read from Postgres. Each loader is one
 * round trip; the cache decides when to call it (`ProjectSnapshot`).
 */

/** An API key with what a request needs of its project. */
export interface CachedApiKey {
  id: string;
  enabled: boolean;
  projectId: string;
  /** The project's name and owner, so that a key's caller needs no second read. */
  name: string;
  ownerId: string;
}

/** What a send needs of a template: its text, to know the variables it uses, and what the message is built from. */
export interface CachedTemplate {
  id: string;
  updatedAt: string;
  title: string;
  body: string;
  /** The static payload, for the size of the message. */
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

export interface ProjectStateLoaders {
  /** The key with this SHA-256, in whichever project it is. */
  apiKey(keyHash: string): Promise<CachedApiKey | null>;
  template(projectId: string, templateId: string): Promise<CachedTemplate | null>;
  sendReadiness(projectId: string): Promise<SendReadiness>;
}

/** The loaders over Postgres. Raw SQL: these run on the send path, where Prisma's per-query work shows. */
export function postgresLoaders(db: Db): ProjectStateLoaders {
  return {
    async apiKey(keyHash) {
      const [key] = await db.$queryRaw<CachedApiKey[]>`
        SELECT k."id", k."enabled", k."projectId", p."name", p."ownerId"
        FROM "ApiKey" k JOIN "Project" p ON p."id" = k."projectId"
        WHERE k."keyHash" = ${keyHash}`;
      return key ?? null;
    },
    async template(projectId, templateId) {
      const [row] = await db.$queryRaw<CachedTemplate[]>`
        SELECT "id", "updatedAt", "title", "body", "data", "options" FROM "PushTemplate" WHERE "id" = ${templateId}::uuid AND "projectId" = ${projectId}::uuid`;
      return row ?? null;
    },
    async sendReadiness(projectId) {
      const [row] = await db.$queryRaw<SendReadiness[]>`
        SELECT (SELECT c."enabled" FROM "PushConfig" c WHERE c."projectId" = ${projectId}::uuid) AS "pushEnabled",
               EXISTS (SELECT 1 FROM "ProviderConfig" p WHERE p."projectId" = ${projectId}::uuid AND p."enabled") AS "hasEnabledProvider"`;
      return row;
    },
  };
}
