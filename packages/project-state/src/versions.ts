import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import type { Logger } from 'pino';

/**
 * The Redis key holding a project's version. The API replaces it whenever a request changes the
 * project's API keys, templates, push config or providers; the API and the worker cache what they
 * read about a project only for as long as this version is unchanged.
 */
export const projectVersionKey = (prefix: string, projectId: string) => `${prefix}:project-version:${projectId}`;

/** The version key outlives any snapshot by far; an expired key only costs one reload. */
const VERSION_TTL_SECONDS = 7 * 24 * 3600;

/**
 * The projects' versions in Redis: read by whoever caches a project's state, replaced by whoever
 * changes it. A version that cannot be replaced now (Redis is away) is replaced when Redis is back:
 * at its next `ready`, or a second later, whichever comes first.
 */
export class ProjectVersions {
  /** Projects whose version could not be replaced: retried when Redis is reachable again. */
  private readonly pending = new Set<string>();
  private retryTimer?: NodeJS.Timeout;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    /** Hears a version that could not be published (once per project until it is). */
    private readonly logger?: Pick<Logger, 'error'>,
  ) {
    redis.on('ready', () => {
      if (this.pending.size) void this.publish([...this.pending]);
    });
  }

  /** Calls `listener` each time the Redis connection is (re)established: versions missed meanwhile make every cached one suspect. */
  onReconnect(listener: () => void): void {
    this.redis.on('ready', listener);
  }

  /** The project's version; `null` when it has none (never changed, or Redis lost it). */
  read(projectId: string): Promise<string | null> {
    return this.redis.get(projectVersionKey(this.prefix, projectId));
  }

  /** The versions of several projects, in one command. */
  readMany(projectIds: readonly string[]): Promise<(string | null)[]> {
    return this.redis.mget(projectIds.map((id) => projectVersionKey(this.prefix, id)));
  }

  /**
   * Gives each project a new version, so that every instance reloads it at its next read. Never
   * throws: a version that cannot be written now is retried when Redis is back.
   */
  async publish(projectIds: readonly string[]): Promise<void> {
    try {
      const pipeline = this.redis.pipeline();
      for (const id of projectIds) pipeline.set(projectVersionKey(this.prefix, id), randomUUID(), 'EX', VERSION_TTL_SECONDS);
      const results = await pipeline.exec();
      const failed = results?.find(([err]) => err)?.[0];
      if (!results || failed) throw failed ?? new Error('pipeline not executed');
      for (const id of projectIds) this.pending.delete(id);
    } catch (err) {
      const known = projectIds.every((id) => this.pending.has(id));
      for (const id of projectIds) this.pending.add(id);
      this.retryLater();
      if (!known) this.logger?.error({ err: { message: (err as Error).message }, projects: projectIds }, 'could not publish a project change to other instances; retrying');
    }
  }

  private retryLater() {
    if (this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (this.pending.size) void this.publish([...this.pending]);
    }, 1_000).unref();
  }
}
