import { AppError, generateApiKey, hashSecret } from '@herald/core';
import { auditChanges, writeAudit, type ApiKey, type AuditSource, type Db } from '@herald/db';
import type { ApiKeyScope } from '@herald/schemas';

export const KEY_NOT_FOUND = 'API key not found';

type KeyFields = Pick<ApiKey, 'id' | 'name' | 'prefix' | 'enabled' | 'scopes' | 'expiresAt' | 'createdAt' | 'lastUsedAt'>;

const toCreatedFields = (k: Omit<KeyFields, 'lastUsedAt'>) => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  enabled: k.enabled,
  scopes: k.scopes as ApiKeyScope[],
  expiresAt: k.expiresAt?.toISOString() ?? null,
  createdAt: k.createdAt.toISOString(),
});

const toKeyResponse = (k: KeyFields) => ({ ...toCreatedFields(k), lastUsedAt: k.lastUsedAt?.toISOString() ?? null });

export interface KeySettings {
  name: string;
  scopes?: ApiKeyScope[];
  expiresAt?: string;
}

export interface KeyChanges {
  name?: string;
  enabled?: boolean;
  scopes?: ApiKeyScope[];
  expiresAt?: string | null;
}

export const tooManyKeys = (max: number) => `A project may hold at most ${max} API keys: delete one first`;

/** A key's fields as the audit log records them (its hash only as "changed"). */
const AUDITED = ['name', 'prefix', 'enabled', 'scopes', 'expiresAt'] as const;

/**
 * A project's API keys. Only the SHA-256 of a key is stored; the key itself is shown once, at
 * creation. Requests find keys by hash in the project cache (http/caller.ts, project-cache/);
 * the routes that call this service publish a new project version before they answer, so disabling
 * or deleting a key takes effect on every API instance at the next request.
 */
export class ApiKeysService {
  constructor(
    private readonly db: Db,
    /** Keys a project may hold (API_KEYS_PER_PROJECT): limits count per key, so keys must not be free. */
    private readonly maxPerProject: number,
  ) {}

  async create(projectId: string, { name, scopes, expiresAt }: KeySettings, source: AuditSource) {
    const { key, prefix } = generateApiKey();
    const row = await this.db.$transaction(async (tx) => {
      // The project's row is locked, so that concurrent creations cannot pass the cap together.
      await tx.$queryRaw`SELECT 1 FROM "Project" WHERE "id" = ${projectId}::uuid FOR UPDATE`;
      if ((await tx.apiKey.count({ where: { projectId } })) >= this.maxPerProject) throw AppError.conflict(tooManyKeys(this.maxPerProject));
      const created = await tx.apiKey.create({ data: { projectId, name, prefix, keyHash: hashSecret(key), scopes, expiresAt: expiresAt && new Date(expiresAt) } });
      await writeAudit(tx, source, { projectId, action: 'api_key.created', target: { type: 'api_key', id: created.id }, changes: auditChanges(null, created, AUDITED, ['keyHash']) });
      return created;
    });
    return { ...toCreatedFields(row), key };
  }

  async list(projectId: string) {
    const keys = await this.db.apiKey.findMany({ where: { projectId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
    return keys.map(toKeyResponse);
  }

  async update(projectId: string, keyId: string, { expiresAt, ...changes }: KeyChanges, source: AuditSource) {
    const data = { ...changes, ...(expiresAt !== undefined && { expiresAt: expiresAt && new Date(expiresAt) }) };
    const row = await this.db.$transaction(async (tx) => {
      const before = await tx.apiKey.findFirst({ where: { id: keyId, projectId } });
      if (!before) throw AppError.notFound(KEY_NOT_FOUND);
      const after = await tx.apiKey.update({ where: { id: keyId }, data });
      await writeAudit(tx, source, { projectId, action: 'api_key.updated', target: { type: 'api_key', id: keyId }, changes: auditChanges(before, after, AUDITED) });
      return after;
    });
    return toKeyResponse(row);
  }

  async remove(projectId: string, keyId: string, source: AuditSource) {
    await this.db.$transaction(async (tx) => {
      const before = await tx.apiKey.findFirst({ where: { id: keyId, projectId } });
      if (!before) throw AppError.notFound(KEY_NOT_FOUND);
      await tx.apiKey.delete({ where: { id: keyId } });
      await writeAudit(tx, source, { projectId, action: 'api_key.deleted', target: { type: 'api_key', id: keyId }, changes: auditChanges(before, null, AUDITED) });
    });
    return { message: 'API key deleted' };
  }
}
