import type Redis from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { Lazy, LoadedByKey, ProjectSnapshots, ProjectVersions, type ApiKeyRow, type ProjectReads, type ProjectSettingsRow, type SendReadiness, type TemplateRow } from '@herald/project-state';

/** Entries of one kind a snapshot keeps before it starts over (random template ids must not grow it without bound). */
const SNAPSHOT_MAX_ENTRIES = 1_000;

/** The reads a snapshot loads from (Postgres; tests count them). */
export type ProjectStateLoaders = Pick<ProjectReads, 'apiKey' | 'template' | 'sendReadiness' | 'settings'>;

/** What never changes about an API key (whether it is enabled is read from the project's snapshot). */
export interface KnownKey {
  keyId: string;
  projectId: string;
}

/**
 * What one API instance knows about one project at one version (`ProjectSnapshots`): the API keys,
 * templates and send readiness its hot routes read, each loaded when first asked for.
 */
export class ProjectSnapshot {
  private readonly apiKeys = new LoadedByKey<string, ApiKeyRow | null>(SNAPSHOT_MAX_ENTRIES);
  private readonly templates = new LoadedByKey<string, TemplateRow | null>(SNAPSHOT_MAX_ENTRIES);
  private readonly readiness: Lazy<SendReadiness>;
  private readonly projectSettings: Lazy<ProjectSettingsRow>;

  constructor(
    readonly projectId: string,
    /** The project's version in Redis when this was made; `null` when Redis could not be read. */
    readonly version: string | null,
    private readonly loaders: ProjectStateLoaders,
  ) {
    this.readiness = new Lazy(() => loaders.sendReadiness(projectId));
    this.projectSettings = new Lazy(() => loaders.settings(projectId));
  }

  /** The API key with this SHA-256 (`null`: no such key). */
  apiKey(keyHash: string): Promise<ApiKeyRow | null> {
    return this.apiKeys.get(keyHash, (hash) => this.loaders.apiKey(hash));
  }

  /** One of the project's templates (`null`: not in this project). */
  template(templateId: string): Promise<TemplateRow | null> {
    return this.templates.get(templateId, (id) => this.loaders.template(this.projectId, id));
  }

  /** Whether the project has push enabled and an enabled provider. */
  sendReadiness(): Promise<SendReadiness> {
    return this.readiness.get();
  }

  /** The project's settings (default zone, quiet hours). */
  settings(): Promise<ProjectSettingsRow> {
    return this.projectSettings.get();
  }
}

/**
 * The API's side of the project cache (packages/project-state): what the hot routes read about a
 * project — API keys, templates, the push config and providers. Every request reads the project's
 * version from Redis (one GET, pipelined with the other commands of concurrent requests) once, and
 * uses the cached snapshot only when it was loaded at that very version, so a change made through
 * any instance — a disabled key, an edited template — is seen by every instance at the very next
 * request (docs/api.md#api-keys). Routes that write project state replace the version before they
 * answer (`invalidate`, called by the route runtime). While Redis cannot be read, every request reads
 * Postgres; changes made directly in Postgres are seen within `SNAPSHOT_MAX_AGE_MS`.
 */
export class ProjectCache {
  private readonly snapshots: ProjectSnapshots<ProjectSnapshot>;
  /** API key hash → the key's id and project. Neither ever changes, so this needs no invalidation. */
  private readonly keys = new LRUCache<string, KnownKey>({ max: 100_000 });
  /** Snapshots by request (any object standing for one): the version is read once per request and project. */
  private readonly perRequest = new WeakMap<object, Map<string, Promise<ProjectSnapshot>>>();

  constructor(
    redis: Redis,
    prefix: string,
    logger: Logger,
    private readonly loaders: ProjectStateLoaders,
  ) {
    this.snapshots = new ProjectSnapshots({
      versions: new ProjectVersions(redis, prefix, logger),
      create: (projectId, version) => new ProjectSnapshot(projectId, version, loaders),
    });
  }

  /** The project's snapshot at its current version; read once per request and project. */
  snapshot(req: object, projectId: string): Promise<ProjectSnapshot> {
    let forRequest = this.perRequest.get(req);
    if (!forRequest) this.perRequest.set(req, (forRequest = new Map()));
    let snapshot = forRequest.get(projectId);
    if (!snapshot) {
      snapshot = this.snapshots.get(projectId);
      forRequest.set(projectId, snapshot);
    }
    return snapshot;
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
  invalidate(projectIds: Iterable<string>): Promise<void> {
    return this.snapshots.invalidate(projectIds);
  }
}
