import { LRUCache } from 'lru-cache';
import type { ProjectVersions } from './versions';

/** How long a snapshot is trusted at most, whatever Redis says: the bound on a change made behind the API's back (direct SQL). */
export const SNAPSHOT_MAX_AGE_MS = 60_000;
/** Projects whose snapshot one process keeps. */
const MAX_PROJECTS = 10_000;

export interface ProjectSnapshotsOptions<S> {
  versions: ProjectVersions;
  /**
   * How a project's version is read: by default one GET (ioredis pipelines the GETs of concurrent
   * callers); the worker gathers the projects of the notifications it delivers at once into one MGET.
   */
  readVersion?: (projectId: string) => Promise<string | null>;
  /** A snapshot of the project at this version, with nothing loaded yet (`version` null: Redis could not be read). */
  create(projectId: string, version: string | null): S;
}

/**
 * What one process knows about each project, as snapshots of the caller's own type (what the API's
 * send path reads, what the worker's delivery reads), each valid while the project's version in
 * Redis is the one it was made at, and for `SNAPSHOT_MAX_AGE_MS` at most. Whoever changes a project
 * replaces its version (`invalidate`), so every process sees the change at its next read; a change
 * made directly in Postgres is seen within `SNAPSHOT_MAX_AGE_MS`.
 *
 * While Redis cannot be read nothing cached is trusted: each read gets a fresh snapshot that is not
 * kept, so it reads Postgres. If Redis loses a version key, the read differs from every cached
 * version and the project is reloaded; snapshots are dropped whenever the connection is
 * (re)established, since versions may have been replaced meanwhile.
 */
export class ProjectSnapshots<S> {
  private readonly snapshots = new LRUCache<string, { version: string | null; snapshot: S }>({ max: MAX_PROJECTS, ttl: SNAPSHOT_MAX_AGE_MS });
  private readonly versions: ProjectVersions;
  private readonly readVersion: (projectId: string) => Promise<string | null>;
  private readonly create: (projectId: string, version: string | null) => S;

  constructor(options: ProjectSnapshotsOptions<S>) {
    this.versions = options.versions;
    this.readVersion = options.readVersion ?? ((projectId) => this.versions.read(projectId));
    this.create = options.create;
    this.versions.onReconnect(() => this.snapshots.clear());
  }

  /** The project's snapshot at its current version. */
  async get(projectId: string): Promise<S> {
    let version: string | null;
    try {
      version = await this.readVersion(projectId);
    } catch {
      // Without Redis nothing cached can be trusted: this read goes to Postgres, and so do the next
      // ones until Redis answers again.
      this.snapshots.clear();
      return this.create(projectId, null);
    }
    const cached = this.snapshots.get(projectId);
    if (cached && cached.version === version) return cached.snapshot;
    const snapshot = this.create(projectId, version);
    this.snapshots.set(projectId, { version, snapshot });
    return snapshot;
  }

  /**
   * Gives each project a new version, so that every process reloads it at its next read (this one
   * at once). Never throws: a version that cannot be written now is written when Redis is back.
   */
  async invalidate(projectIds: Iterable<string>): Promise<void> {
    const ids = [...new Set(projectIds)];
    if (!ids.length) return;
    for (const id of ids) this.snapshots.delete(id);
    await this.versions.publish(ids);
  }
}
