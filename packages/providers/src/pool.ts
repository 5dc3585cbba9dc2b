import { createPushProvider, type ProviderClientOptions, type ProviderCredentials } from './registry';
import type { PushProvider } from './types';

/** A stored provider configuration; `updatedAt` tells a changed configuration from the cached one. */
export interface PooledProviderConfig {
  id: string;
  /** The provider type (`fcm`), which the registry builds a client for. */
  provider: string;
  updatedAt: Date | string | number;
  credentials: ProviderCredentials;
}

export type ProviderFactory = (provider: string, credentials: ProviderCredentials, options: ProviderClientOptions) => PushProvider;

/**
 * One client per provider configuration, so that a worker's jobs share connections and access tokens
 * (for FCM: one HTTP/2 session and one token per service account). A configuration updated since it
 * was cached gets a new client; the old one finishes its sends and closes.
 */
export class ProviderPool {
  private readonly clients = new Map<string, { version: number; client: PushProvider }>();

  constructor(
    private readonly options: ProviderClientOptions = {},
    private readonly create: ProviderFactory = createPushProvider,
  ) {}

  get(config: PooledProviderConfig): PushProvider {
    const version = new Date(config.updatedAt).getTime();
    const cached = this.clients.get(config.id);
    if (cached?.version === version) return cached.client;
    if (cached) void cached.client.close();
    const client = this.create(config.provider, config.credentials, this.options);
    this.clients.set(config.id, { version, client });
    return client;
  }

  /** Closes and forgets the client of a deleted configuration. */
  async delete(id: string): Promise<void> {
    const cached = this.clients.get(id);
    this.clients.delete(id);
    await cached?.client.close();
  }

  async close(): Promise<void> {
    const all = [...this.clients.values()];
    this.clients.clear();
    await Promise.all(all.map(({ client }) => client.close()));
  }
}
