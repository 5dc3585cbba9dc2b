import { randomUUID } from 'node:crypto';
import { AppError, sealSecret, SecretError, type KeyRing } from '@herald/core';
import { failoverOrder, isPrismaError, isUniqueViolation, openCredentials, Prisma, sealContext, type Db, type ProviderConfig, type PushConfig } from '@herald/db';
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

  async createConfig(projectId: string, enabled: boolean) {
    try {
      return toPushConfigResponse(await this.db.pushConfig.create({ data: { projectId, enabled } }));
    } catch (err) {
      if (isUniqueViolation(err)) throw AppError.conflict(PUSH_CONFIG_EXISTS);
      throw err;
    }
  }

  async updateConfig(projectId: string, enabled: boolean) {
    try {
      return toPushConfigResponse(await this.db.pushConfig.update({ where: { projectId }, data: { enabled } }));
    } catch (err) {
      if (isPrismaError(err, 'P2025')) throw AppError.notFound(PUSH_CONFIG_NOT_FOUND);
      throw err;
    }
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

  async createProvider(projectId: string, input: CreateProviderInput) {
    const def = this.definition(input.provider);
    const credentials = credentialsOrThrow(parseCredentials(def, input.config));
    const id = randomUUID();
    const row = await this.db.providerConfig.create({
      data: { id, projectId, provider: def.provider, name: input.name, priority: input.priority, enabled: input.enabled, ...this.seal(def, id, credentials) },
      select: publicColumns,
    });
    return toProviderResponse(row);
  }

  async updateProvider(projectId: string, providerConfigId: string, input: UpdateProviderInput) {
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
      return toProviderResponse(updated);
    });
  }

  async deleteProvider(projectId: string, providerConfigId: string) {
    const { count } = await this.db.providerConfig.deleteMany({ where: { id: providerConfigId, projectId } });
    if (count === 0) throw AppError.notFound(PROVIDER_NOT_FOUND);
    return { message: 'Provider config deleted' };
  }

  /** Sets several priorities at once: all or nothing, and only for providers of this project. */
  async updatePriorities(projectId: string, providers: { id: string; priority: number }[]) {
    return this.db.$transaction(async (tx) => {
      const found = await tx.providerConfig.findMany({ where: { projectId, id: { in: providers.map((p) => p.id) } }, select: { id: true } });
      const known = new Set(found.map((p) => p.id));
      const unknown = providers.flatMap((p, i) => (known.has(p.id) ? [] : [{ path: `providers.${i}.id`, message: 'Provider config not found in this project' }]));
      if (unknown.length) throw AppError.badRequest('Every provider must belong to this project; nothing was changed', unknown);
      for (const p of providers) {
        const { count } = await tx.providerConfig.updateMany({ where: { id: p.id, projectId }, data: { priority: p.priority } });
        // deleted since the check above: roll everything back
        if (count === 0) throw AppError.badRequest('Every provider must belong to this project; nothing was changed');
      }
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
