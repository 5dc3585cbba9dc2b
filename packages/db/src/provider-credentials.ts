import { openSecret, type KeyRing } from '@herald/core';
import { sqlPool, type Db } from './client';
import type { Prisma, ProviderConfig } from './generated/prisma/client';

/** Decrypted credentials of a provider configuration: public and secret fields together. */
export type StoredCredentials = Record<string, string>;

/** Failover order (docs/delivery.md): lower priority first, ties by creation (then id, to be total). */
export const failoverOrder: Prisma.ProviderConfigOrderByWithRelationInput[] = [{ priority: 'asc' }, { createdAt: 'asc' }, { id: 'asc' }];

/** The envelope is bound to its row: copied into another row, it does not open. */
export const sealContext = (providerConfigId: string) => `providerConfig:${providerConfigId}`;

export function openCredentials(row: Pick<ProviderConfig, 'id' | 'config' | 'secrets' | 'keyId'>, keys: KeyRing): StoredCredentials {
  const secrets = JSON.parse(openSecret(row.secrets, row.keyId, keys, sealContext(row.id))) as StoredCredentials;
  return { ...(row.config as StoredCredentials), ...secrets };
}

export interface LoadedProvider {
  id: string;
  provider: string;
  name: string;
  priority: number;
  /** Changes whenever the row does, so a cached client can tell its credentials are stale. */
  updatedAt: Date;
  credentials: StoredCredentials;
}

/**
 * For the delivery worker: the project's enabled providers in failover order, with decrypted
 * credentials. A row that cannot be opened (its key is no longer configured, or it was tampered
 * with) is skipped and reported through `onError`, so the other providers still deliver.
 */
export async function loadProviderCredentials(
  db: Db,
  keys: KeyRing,
  projectId: string,
  onError: (providerConfigId: string, err: Error) => void = () => undefined,
): Promise<LoadedProvider[]> {
  // Through node-postgres: the worker's delivery path never waits for Prisma's query engine to load
  // (a third of a second at start), nor keeps it in memory. The order is `failoverOrder`'s.
  const { rows } = await sqlPool(db).query<Pick<ProviderConfig, 'id' | 'provider' | 'name' | 'priority' | 'updatedAt' | 'config' | 'secrets' | 'keyId'>>({
    name: 'herald_providerCredentials',
    text: `SELECT "id", "provider", "name", "priority", "updatedAt", "config", "secrets", "keyId" FROM "ProviderConfig"
           WHERE "projectId" = $1::uuid AND "enabled" ORDER BY "priority", "createdAt", "id"`,
    values: [projectId],
  });
  const loaded: LoadedProvider[] = [];
  for (const row of rows) {
    try {
      loaded.push({ id: row.id, provider: row.provider, name: row.name, priority: row.priority, updatedAt: row.updatedAt, credentials: openCredentials(row, keys) });
    } catch (err) {
      onError(row.id, err as Error);
    }
  }
  return loaded;
}
