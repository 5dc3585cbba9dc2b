import type Redis from 'ioredis';
import { projectVersionKey, pushUnavailableReason, readPushOptions, type CompiledTemplate, type PushOptions, type TemplateSource } from '@herald/core';
import type { LoadedProvider } from '@herald/db';
import { GroupCommit } from './group-commit';
import type { DeliveryRepository } from './repository';

/** How long a context is trusted at most, whatever Redis says: the bound on a change made behind the API's back (direct SQL). */
export const CONTEXT_MAX_AGE_MS = 60_000;
/** Projects whose context one worker keeps. */
const MAX_PROJECTS = 10_000;
/** Templates one project's context keeps before it starts over. */
const MAX_TEMPLATES = 1_000;

/** What delivering a notification of a project needs besides the notification itself. */
export type ProjectContext =
  | { error: string }
  | {
      providers: LoadedProvider[];
      template: CompiledTemplate;
      /** The template's default options. */
      templateOptions: PushOptions;
    };

export interface ProjectContextSources {
  redis: Redis;
  prefix: string;
  repository: DeliveryRepository;
  /** The project's enabled providers in failover order, with their credentials opened. */
  loadProviders(projectId: string): Promise<LoadedProvider[]>;
  compile(source: TemplateSource): CompiledTemplate;
  /**
   * Called with the first provider each time a project's providers are read (a worker's first
   * notification of the project, then the first one after a change or after CONTEXT_MAX_AGE_MS): its
   * client gets ready to send — an access token, a connection — while the notification's rows are
   * planned, and renews a token nearing its expiry before a send has to wait for it.
   */
  prepare?(provider: LoadedProvider): void;
  now?: () => number;
}

type TemplateEntry = { error: string } | { template: CompiledTemplate; templateOptions: PushOptions };

interface Snapshot {
  version: string | null;
  loadedAt: number;
  /** Push config and providers: the reason the project cannot deliver, or its providers. */
  providers: Promise<{ error: string } | { providers: LoadedProvider[] }>;
  templates: Map<string, Promise<TemplateEntry>>;
}

/**
 * The per-project context of delivery — push config, providers, templates compiled — cached in the
 * worker for as long as the project's version in Redis is unchanged. The API replaces that version
 * whenever a request changes a project's templates, push config or providers, so a change is seen at
 * the next notification; while nothing changes, a stream of sends reads none of it from Postgres.
 * The versions of all the projects that notifications reach together are read in one MGET. Without
 * Redis, every notification reads Postgres.
 */
export class ProjectContexts {
  private readonly snapshots = new Map<string, Snapshot>();
  private readonly versions: GroupCommit<string, string | null>;
  private readonly now: () => number;

  constructor(private readonly sources: ProjectContextSources) {
    this.now = sources.now ?? Date.now;
    this.versions = new GroupCommit(async (projectIds) => sources.redis.mget(projectIds.map((id) => projectVersionKey(sources.prefix, id))), { concurrency: 2 });
  }

  async get(projectId: string, templateId: string): Promise<ProjectContext> {
    const snapshot = await this.snapshot(projectId);
    const [providers, template] = await Promise.all([snapshot.providers, this.template(snapshot, projectId, templateId)]);
    if ('error' in template) return template;
    if ('error' in providers) return providers;
    return { providers: providers.providers, template: template.template, templateOptions: template.templateOptions };
  }

  private async snapshot(projectId: string): Promise<Snapshot> {
    let version: string | null;
    try {
      version = await this.versions.submit(projectId);
    } catch {
      // Nothing cached can be trusted without Redis: read Postgres until it answers again.
      this.snapshots.clear();
      return this.load(projectId, null);
    }
    const cached = this.snapshots.get(projectId);
    if (cached && cached.version === version && this.now() - cached.loadedAt < CONTEXT_MAX_AGE_MS) return cached;
    const fresh = this.load(projectId, version);
    if (this.snapshots.size >= MAX_PROJECTS) this.snapshots.delete(this.snapshots.keys().next().value as string);
    this.snapshots.delete(projectId);
    this.snapshots.set(projectId, fresh);
    return fresh;
  }

  private load(projectId: string, version: string | null): Snapshot {
    const { repository, loadProviders } = this.sources;
    const providers = Promise.all([repository.pushConfigEnabled(projectId), loadProviders(projectId)]).then(([configEnabled, loaded]) => {
      const error = pushUnavailableReason({ configEnabled, hasProvider: loaded.length > 0 });
      if (!error) {
        try {
          this.sources.prepare?.(loaded[0]);
        } catch {
          // Getting ready is an optimisation: whatever failed here, the send meets it and reports it.
        }
      }
      return error ? { error } : { providers: loaded };
    });
    const snapshot: Snapshot = { version, loadedAt: this.now(), providers, templates: new Map() };
    // A failed read is not kept: the next notification tries again.
    providers.catch(() => this.forget(projectId, snapshot));
    return snapshot;
  }

  private template(snapshot: Snapshot, projectId: string, templateId: string): Promise<TemplateEntry> {
    let entry = snapshot.templates.get(templateId);
    if (!entry) {
      if (snapshot.templates.size >= MAX_TEMPLATES) snapshot.templates.clear();
      entry = this.sources.repository.template(projectId, templateId).then((row): TemplateEntry => {
        if (!row) return { error: 'The template was deleted before delivery' };
        try {
          return { template: this.sources.compile({ id: row.id, updatedAt: row.updatedAt, title: row.title, body: row.body, data: row.data }), templateOptions: readPushOptions(row.options) };
        } catch (err) {
          return { error: `The template cannot be rendered: ${(err as Error).message}` };
        }
      });
      snapshot.templates.set(templateId, entry);
      entry.catch(() => snapshot.templates.delete(templateId));
    }
    return entry;
  }

  private forget(projectId: string, snapshot: Snapshot) {
    if (this.snapshots.get(projectId) === snapshot) this.snapshots.delete(projectId);
  }
}
