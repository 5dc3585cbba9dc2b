import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import type { CachedApiKey, CachedTemplate, ProjectStateLoaders, SendReadiness } from './loaders';
import { projectVersionKey } from '@herald/core';

/** How long a snapshot is trusted at most, whatever Redis says: the bound on a change made behind the API's back (direct SQL). */
export const SNAPSHOT_MAX_AGE_MS = 60_000;
/** Entries of one kind a snapshot keeps before it starts over (random template ids must not grow it without bound). */
const SNAPSHOT_MAX_ENTRIES = 1_000;
/** The version key outlives any snapshot by far; an expired key only costs one reload. */
const VERSION_TTL_SECONDS = 7 * 24 * 3600;

/** What never changes about an API key (whether it is enabled is read from the project's snapshot). */
export interface KnownKey {
  keyId: string;
  projectId: string;
}

/** Values loaded once each; concurrent callers share one load, and a failed load is not kept. */
class Loaded<K, V> {
  private readonly entries = new Map<K, Promise<V>>();

  get(key: K, load: () => Promise<V>): Promise<V> {
    let entry = this.entries.get(key);
    if (!entry) {
      if (this.entries.size >= SNAPSHOT_MAX_ENTRIES) this.entries.clear();
      entry = load();
      this.entries.set(key, entry);
      entry.catch(() => this.entries.delete(key));
    }
    return entry;
  }
}

/**
 * What one API instance knows about one project, read from Postgres after the project's version was
 * read from Redis. It is valid while that version is unchanged: any write to the project's keys,
 * templates, push config or providers replaces the version first.
 */
export class ProjectSnapshot {
  private readonly apiKeys = new Loaded<string, CachedApiKey | null>();
  private readonly templates = new Loaded<string, CachedTemplate | null>();
  private readonly readiness = new Loaded<'send', SendReadiness>();

  constructor(
    readonly projectId: string,
    /** The project's version in Redis when this was made; `null` when Redis could not be read. */
    readonly version: string | null,
    private readonly loaders: ProjectStateLoaders,
  ) {}

  /** The API key with this SHA-256 (`null`: no such key). */
  apiKey(keyHash: string): Promise<CachedApiKey | null> {
    return this.apiKeys.get(keyHash, () => this.loaders.apiKey(keyHash));
  }

  /** One of the project's templates (`null`: not in this project). */
  template(templateId: string): Promise<CachedTemplate | null> {
    return this.templates.get(templateId, () => this.loaders.template(this.projectId, templateId));
  }

  /** Whether the project has push enabled and an enabled provider. */
  sendReadiness(): Promise<SendReadiness> {
    return this.readiness.get('send', () => this.loaders.sendReadiness(this.projectId));
  }
}

/**
 * The per-instance cache of what the hot routes read about a project: API keys, templates, the push
 * config and providers. Every request reads the project's version from Redis (one GET, pipelined with
 * the other commands of concurrent requests) and uses the cached snapshot only when it was loaded at
 * that very version, so a change made through any instance — a disabled key, an edited template — is
 * seen by every instance at the very next request (docs/api.md#api-keys). Routes that write project state
 * replace the version before they answer (`invalidate`, called by the route runtime).
 *
 * While Redis cannot be read, every request reads Postgres. If Redis loses the version key, the
 * read differs from every cached version and the project is reloaded. If replacing a version fails, it is retried when Redis is back, and every instance drops
 * its snapshots whenever its Redis connection is (re)established. Changes made directly in Postgres
 * are seen within `SNAPSHOT_MAX_AGE_MS`.
 */
export class ProjectCache {
  private readonly snapshots = new LRUCache<string, ProjectSnapshot>({ max: 10_000, ttl: SNAPSHOT_MAX_AGE_MS });
  /** API key hash → the key's id and project. Neither ever changes, so this needs no invalidation. */
  private readonly keys = new LRUCache<string, KnownKey>({ max: 100_000 });
  /** Snapshots by request (any object standing for one): the version is read once per request and project. */
  private readonly perRequest = new WeakMap<object, Map<string, Promise<ProjectSnapshot>>>();
  /** Projects whose version could not be replaced: retried when Redis is reachable again. */
  private readonly pending = new Set<string>();

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly logger: Logger,
    private readonly loaders: ProjectStateLoaders,
  ) {
    redis.on('ready', () => {
      this.snapshots.clear();
      if (this.pending.size) void this.invalidate([...this.pending]);
    });
  }

  private retryTimer?: NodeJS.Timeout;

  private retryLater() {
    if (this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (this.pending.size) void this.invalidate([...this.pending]);
    }, 1_000).unref();
  }

  private versionKey(projectId: string) {
    return projectVersionKey(this.prefix, projectId);
  }

  /** The project's snapshot at its current version; read once per request and project. */
  snapshot(req: object, projectId: string): Promise<ProjectSnapshot> {
    let forRequest = this.perRequest.get(req);
    if (!forRequest) this.perRequest.set(req, (forRequest = new Map()));
    let snapshot = forRequest.get(projectId);
    if (!snapshot) {
      snapshot = this.current(projectId);
      forRequest.set(projectId, snapshot);
    }
    return snapshot;
  }

  private async current(projectId: string): Promise<ProjectSnapshot> {
    let version: string | null;
    try {
      version = await this.redis.get(this.versionKey(projectId));
    } catch {
      // Without Redis nothing cached can be trusted: this request reads Postgres, and so do the
      // next ones until Redis answers again (routes that need only Postgres keep working).
      this.snapshots.clear();
      return new ProjectSnapshot(projectId, null, this.loaders);
    }
    const cached = this.snapshots.get(projectId);
    if (cached && cached.version === version) return cached;
    const fresh = new ProjectSnapshot(projectId, version, this.loaders);
    this.snapshots.set(projectId, fresh);
    return fresh;
  }

  /** The key's id and project when this instance has seen the key before (no I/O). */
  knownKey(keyHash: string): KnownKey | undefined {
    return this.keys.get(keyHash);
  }

  /**
   * The key's id and project, read from Postgres on its first use on this instance. Only the ids are
   * taken from that read: whether the key is enabled is read from the project's snapshot, whose
   * version is read after this, so that it cannot predate a change.
   */
  async findKey(keyHash: string): Promise<KnownKey | undefined> {
    const known = this.keys.get(keyHash);
    if (known) return known;
    const found = await this.loaders.apiKey(keyHash);
    if (!found) return undefined;
    const key = { keyId: found.id, projectId: found.projectId };
    this.keys.set(keyHash, key);
    return key;
  }

  /**
   * Gives each project a new version, so that every instance reloads it at its next request. Never
   * throws: a version that cannot be written now is retried when Redis is back.
   */
  async invalidate(projectIds: Iterable<string>): Promise<void> {
    const ids = [...new Set(projectIds)];
    if (!ids.length) return;
    for (const id of ids) this.snapshots.delete(id);
    try {
      const pipeline = this.redis.pipeline();
      for (const id of ids) pipeline.set(this.versionKey(id), randomUUID(), 'EX', VERSION_TTL_SECONDS);
      const results = await pipeline.exec();
      const failed = results?.find(([err]) => err)?.[0];
      if (!results || failed) throw failed ?? new Error('pipeline not executed');
      for (const id of ids) this.pending.delete(id);
    } catch (err) {
      const known = ids.every((id) => this.pending.has(id));
      for (const id of ids) this.pending.add(id);
      this.retryLater();
      if (!known) this.logger.error({ err: { message: (err as Error).message }, projects: ids }, 'could not publish a project change to other instances; retrying');
    }
  }
}
