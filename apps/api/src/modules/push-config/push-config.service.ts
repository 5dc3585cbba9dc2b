import { randomUUID } from 'node:crypto';
import { AppError, sealSecret, SecretError, type KeyRing } from '@herald/core';
import { auditChanges, failoverOrder, isUniqueViolation, openCredentials, Prisma, sealContext, SECRET_CHANGED, writeAudit, type AuditSource, type Db, type ProviderConfig, type PushConfig } from '@herald/db';
import {
  createPushProvider,
  getProviderDefinition,
  maskCredentials,
  mergeCredentials,
  parseCredentials,
  splitCredentials,
  type CredentialsResult,
  type ProviderClientOptions,
  type ProviderCredentials,
  type ProviderDefinition,
} from '@herald/providers';

export const PUSH_CONFIG_NOT_FOUND = 'Push config not found';
export const PUSH_CONFIG_EXISTS = 'Push config already exists for this project';
export const PROVIDER_NOT_FOUND = 'Provider config not found';
export const PROVIDER_TYPE_IMMUTABLE = 'Provider type cannot be changed';

type Tx = Prisma.TransactionClient;

/** Every column but the sealed secrets: what reads need. */
const publicColumns = {
  id: true,
  projectId: true,
  provider: true,
  name: true,
  priority: true,
  enabled: true,
  config: true,
  createdAt: true,
  updatedAt: true,
} satisfies Prisma.ProviderConfigSelect;
type ProviderRow = Prisma.ProviderConfigGetPayload<{ select: typeof publicColumns }>;

export const toPushConfigResponse = (c: PushConfig) => ({
  id: c.id,
  projectId: c.projectId,
  enabled: c.enabled,
  createdAt: c.createdAt.toISOString(),
  updatedAt: c.updatedAt.toISOString(),
});

export const toProviderResponse = (p: ProviderRow) => ({
  id: p.id,
  provider: p.provider,
  name: p.name,
  priority: p.priority,
  enabled: p.enabled,
  config: maskCredentials(getProviderDefinition(p.provider), (p.config ?? {}) as Record<string, unknown>),
  createdAt: p.createdAt.toISOString(),
  updatedAt: p.updatedAt.toISOString(),
});

/** Credential issues as a validation error (docs/api.md#errors), under `config.` (the input is never echoed). */
function credentialsOrThrow(result: CredentialsResult): ProviderCredentials {
  if (result.success) return result.credentials;
  const details = result.issues.map((i) => ({ path: i.path ? `config.${i.path}` : 'config', message: i.message }));
  throw AppError.badRequest(`Invalid request body: ${details[0].path}: ${details[0].message}`, details);
}

export interface CreateProviderInput {
  provider: string;
  name: string;
  priority: number;
  enabled: boolean;
  config: unknown;
}

export interface UpdateProviderInput {
  provider?: string;
  name?: string;
  priority?: number;
  enabled?: boolean;
  config?: unknown;
}

/**
 * A project's push config (one per project) and its provider configurations. Credentials are split:
 * public fields in `config` (JSON), secret fields sealed with AES-256-GCM in `secrets`, tagged with
 * the id of the key that sealed them. Every query is scoped by projectId.
 */
/** A provider's fields as the audit log records them (its sealed credentials only as "changed"). */
const PROVIDER_AUDITED = ['provider', 'name', 'priority', 'enabled', 'config'] as const;

export class PushConfigService {
  constructor(
    private readonly db: Db,
    private readonly keys: KeyRing,
  ) {}

  async getConfig(projectId: string) {
    const config = await this.db.pushConfig.findUnique({ where: { projectId } });
    if (!config) throw AppError.notFound(PUSH_CONFIG_NOT_FOUND);
    return toPushConfigResponse(config);
  }

  async createConfig(projectId: string, enabled: boolean, source: AuditSource) {
    try {
      const config = await this.db.$transaction(async (tx) => {
        const created = await tx.pushConfig.create({ data: { projectId, enabled } });
        await writeAudit(tx, source, { projectId, action: 'push_config.created', target: { type: 'push_config', id: created.id }, changes: auditChanges(null, created, ['enabled']) });
        return created;
      });
      return toPushConfigResponse(config);
    } catch (err) {
      if (isUniqueViolation(err)) throw AppError.conflict(PUSH_CONFIG_EXISTS);
      throw err;
    }
  }

  async updateConfig(projectId: string, enabled: boolean, source: AuditSource) {
    const config = await this.db.$transaction(async (tx) => {
      const [before] = await tx.$queryRaw<{ enabled: boolean }[]>`SELECT "enabled" FROM "PushConfig" WHERE "projectId" = ${projectId}::uuid FOR UPDATE`;
      if (!before) throw AppError.notFound(PUSH_CONFIG_NOT_FOUND);
      const after = await tx.pushConfig.update({ where: { projectId }, data: { enabled } });
      const changes = auditChanges(before, after, ['enabled']);
      if (Object.keys(changes).length) await writeAudit(tx, source, { projectId, action: 'push_config.updated', target: { type: 'push_config', id: after.id }, changes });
      return after;
    });
    return toPushConfigResponse(config);
  }

  async listProviders(projectId: string, db: Db | Tx = this.db) {
    const rows = await db.providerConfig.findMany({ where: { projectId }, select: publicColumns, orderBy: failoverOrder });
    return rows.map(toProviderResponse);
  }

  /** The project a provider config belongs to, for the caller's access check (404 when unknown). */
  async providerProjectId(providerConfigId: string): Promise<string | undefined> {
    const row = await this.db.providerConfig.findUnique({ where: { id: providerConfigId }, select: { projectId: true } });
    return row?.projectId;
  }

  async createProvider(projectId: string, input: CreateProviderInput, source: AuditSource) {
    const def = this.definition(input.provider);
    const credentials = credentialsOrThrow(parseCredentials(def, input.config));
    const id = randomUUID();
    const row = await this.db.$transaction(async (tx) => {
      const created = await tx.providerConfig.create({
        data: { id, projectId, provider: def.provider, name: input.name, priority: input.priority, enabled: input.enabled, ...this.seal(def, id, credentials) },
        select: publicColumns,
      });
      const changes = { ...auditChanges(null, created, PROVIDER_AUDITED), secrets: SECRET_CHANGED };
      await writeAudit(tx, source, { projectId, action: 'provider.created', target: { type: 'provider', id }, changes });
      return created;
    });
    return toProviderResponse(row);
  }

  async updateProvider(projectId: string, providerConfigId: string, input: UpdateProviderInput, source: AuditSource) {
    // Row lock: two partial config updates must merge one after the other, not both into the old value.
    return this.db.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT 1 FROM "ProviderConfig" WHERE "id" = ${providerConfigId}::uuid AND "projectId" = ${projectId}::uuid FOR UPDATE`;
      const row = await tx.providerConfig.findFirst({ where: { id: providerConfigId, projectId } });
      if (!row) throw AppError.notFound(PROVIDER_NOT_FOUND);
      if (input.provider !== undefined && input.provider !== row.provider) throw AppError.badRequest(PROVIDER_TYPE_IMMUTABLE);
      const data: Prisma.ProviderConfigUpdateInput = { name: input.name, priority: input.priority, enabled: input.enabled };
      if (input.config !== undefined) {
        const def = this.definition(row.provider);
        const credentials = credentialsOrThrow(mergeCredentials(def, () => this.openForMerge(row), input.config));
        Object.assign(data, this.seal(def, row.id, credentials));
      }
      const updated = await tx.providerConfig.update({ where: { id: row.id, projectId }, data, select: publicColumns });
      // Sealed credentials are new ciphertext each time: a given `config` counts as a change of them.
      const changes = { ...auditChanges(row, updated, PROVIDER_AUDITED), ...(input.config !== undefined && { secrets: SECRET_CHANGED }) };
      if (Object.keys(changes).length) await writeAudit(tx, source, { projectId, action: 'provider.updated', target: { type: 'provider', id: row.id }, changes });
      return toProviderResponse(updated);
    });
  }

  async deleteProvider(projectId: string, providerConfigId: string, source: AuditSource) {
    await this.db.$transaction(async (tx) => {
      const before = await tx.providerConfig.findFirst({ where: { id: providerConfigId, projectId }, select: publicColumns });
      if (!before || !(await tx.providerConfig.deleteMany({ where: { id: providerConfigId, projectId } })).count) throw AppError.notFound(PROVIDER_NOT_FOUND);
      await writeAudit(tx, source, { projectId, action: 'provider.deleted', target: { type: 'provider', id: providerConfigId }, changes: auditChanges(before, null, PROVIDER_AUDITED) });
    });
    return { message: 'Provider config deleted' };
  }

  /** Sets several priorities at once: all or nothing, and only for providers of this project. */
  async updatePriorities(projectId: string, providers: { id: string; priority: number }[], source: AuditSource) {
    return this.db.$transaction(async (tx) => {
      const found = await tx.providerConfig.findMany({ where: { projectId, id: { in: providers.map((p) => p.id) } }, select: { id: true, priority: true } });
      const known = new Set(found.map((p) => p.id));
      const unknown = providers.flatMap((p, i) => (known.has(p.id) ? [] : [{ path: `providers.${i}.id`, message: 'Provider config not found in this project' }]));
      if (unknown.length) throw AppError.badRequest('Every provider must belong to this project; nothing was changed', unknown);
      for (const p of providers) {
        const { count } = await tx.providerConfig.updateMany({ where: { id: p.id, projectId }, data: { priority: p.priority } });
        // deleted since the check above: roll everything back
        if (count === 0) throw AppError.badRequest('Every provider must belong to this project; nothing was changed');
      }
      const before = new Map(found.map((p) => [p.id, p.priority]));
      const changes = Object.fromEntries(providers.filter((p) => before.get(p.id) !== p.priority).map((p) => [`${p.id}.priority`, { before: before.get(p.id), after: p.priority }]));
      if (Object.keys(changes).length) await writeAudit(tx, source, { projectId, action: 'providers.reordered', target: { type: 'provider', id: null }, changes });
      return this.listProviders(projectId, tx);
    });
  }

  private definition(provider: string): ProviderDefinition {
    const def = getProviderDefinition(provider);
    // Create validates the type first; a stored row of a since-removed type cannot be re-validated.
    if (!def) throw AppError.badRequest(`Unknown provider type: ${provider}`);
    return def;
  }

  private seal(def: ProviderDefinition, providerConfigId: string, credentials: ProviderCredentials) {
    const { config, secrets } = splitCredentials(def, credentials);
    return { config, secrets: sealSecret(JSON.stringify(secrets), this.keys, sealContext(providerConfigId)), keyId: this.keys.currentKeyId };
  }

  /**
   * Proves stored credentials work without sending anything: obtains an access token through the
   * same client the worker delivers with. The answer never carries a secret.
   */
  async testProvider(projectId: string, providerConfigId: string, clientOptions: ProviderClientOptions): Promise<{ ok: boolean; error?: string }> {
    const row = await this.db.providerConfig.findFirst({ where: { id: providerConfigId, projectId } });
    if (!row) throw AppError.notFound(PROVIDER_NOT_FOUND);
    let credentials: ProviderCredentials;
    try {
      credentials = openCredentials(row, this.keys);
    } catch (err) {
      if (err instanceof SecretError) return { ok: false, error: `The stored credentials cannot be decrypted (${err.message})` };
      throw err;
    }
    const client = createPushProvider(row.provider, credentials, clientOptions);
    try {
      const check = await client.verifyCredentials();
      return check.ok ? { ok: true } : { ok: false, error: check.error ?? 'The provider rejected the credentials' };
    } finally {
      await client.close();
    }
  }

  private openForMerge(row: ProviderConfig): ProviderCredentials {
    try {
      return openCredentials(row, this.keys);
    } catch (err) {
      if (err instanceof SecretError) {
        throw AppError.conflict(`The stored credentials of this provider cannot be decrypted (${err.message}); send the complete config to replace them`);
      }
      throw err;
    }
  }
}
