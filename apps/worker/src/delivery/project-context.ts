import type Redis from 'ioredis';
import { pushUnavailableReason, readPushOptions, type CompiledTemplate, type PushOptions, type TemplateSource } from '@herald/core';
import type { LoadedProvider } from '@herald/db';
import { Lazy, LoadedByKey, ProjectSnapshots, ProjectVersions, type ProjectReads } from '@herald/project-state';
import { GroupCommit } from './group-commit';

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
      /** The project's setting: whether each message carries its delivery's id in `data`. */
      deliveryIdInData: boolean;
    };

export interface ProjectContextSources {
  redis: Redis;
  prefix: string;
  reads: Pick<ProjectReads, 'template' | 'pushConfigEnabled' | 'settings'>;
  /** The project's enabled providers in failover order, with their credentials opened. */
  loadProviders(projectId: string): Promise<LoadedProvider[]>;
  compile(source: TemplateSource): CompiledTemplate;
  /**
   * Called with the first provider each time a project's providers are read (a worker's first
   * notification of the project, then the first one after a change or after SNAPSHOT_MAX_AGE_MS):
   * its client gets ready to send — an access token, a connection — while the notification's rows
   * are planned, and renews a token nearing its expiry before a send has to wait for it.
   */
  prepare?(provider: LoadedProvider): void;
}

type Providers = { error: string } | { providers: LoadedProvider[] };
type TemplateEntry = { error: string } | { template: CompiledTemplate; templateOptions: PushOptions };

/** What one worker knows about one project at one version: its push config and providers, its templates compiled, its settings. */
class DeliverySnapshot {
  readonly providers: Lazy<Providers>;
  readonly deliveryIdInData: Lazy<boolean>;
  private readonly templates = new LoadedByKey<string, TemplateEntry>(MAX_TEMPLATES);

  constructor(
    private readonly projectId: string,
    private readonly sources: ProjectContextSources,
  ) {
    this.providers = new Lazy(() => this.loadProviders());
    this.deliveryIdInData = new Lazy(async () => (await sources.reads.settings(projectId)).deliveryIdInData);
  }

  template(templateId: string): Promise<TemplateEntry> {
    return this.templates.get(templateId, (id) => this.loadTemplate(id));
  }

  private async loadProviders(): Promise<Providers> {
    const { reads, loadProviders } = this.sources;
    const [configEnabled, loaded] = await Promise.all([reads.pushConfigEnabled(this.projectId), loadProviders(this.projectId)]);
    const error = pushUnavailableReason({ configEnabled, hasProvider: loaded.length > 0 });
    if (error) return { error };
    try {
      this.sources.prepare?.(loaded[0]);
    } catch {
      // Getting ready is an optimisation: whatever failed here, the send meets it and reports it.
    }
    return { providers: loaded };
  }

  private async loadTemplate(templateId: string): Promise<TemplateEntry> {
    const row = await this.sources.reads.template(this.projectId, templateId);
    if (!row) return { error: 'The template was deleted before delivery' };
    try {
      return { template: this.sources.compile({ id: row.id, updatedAt: row.updatedAt, title: row.title, body: row.body, data: row.data }), templateOptions: readPushOptions(row.options) };
    } catch (err) {
      return { error: `The template cannot be rendered: ${(err as Error).message}` };
    }
  }
}

/**
 * The worker's side of the project cache (packages/project-state): the per-project context of
 * delivery — push config, providers, templates compiled — kept for as long as the project's version
 * in Redis is unchanged. The API replaces that version whenever a request changes a project's
 * templates, push config, providers or settings, so a change is seen at the next notification; while nothing
 * changes, a stream of sends reads none of it from Postgres. The versions of all the projects that
 * notifications reach together are read in one MGET. Without Redis, every notification reads Postgres.
 */
export class ProjectContexts {
  private readonly snapshots: ProjectSnapshots<DeliverySnapshot>;

  constructor(sources: ProjectContextSources) {
    const versions = new ProjectVersions(sources.redis, sources.prefix);
    const reads = new GroupCommit((projectIds: string[]) => versions.readMany(projectIds), { concurrency: 2 });
    this.snapshots = new ProjectSnapshots({
      versions,
      readVersion: (projectId) => reads.submit(projectId),
      create: (projectId) => new DeliverySnapshot(projectId, sources),
    });
  }

  async get(projectId: string, templateId: string): Promise<ProjectContext> {
    const snapshot = await this.snapshots.get(projectId);
    const [providers, template, deliveryIdInData] = await Promise.all([snapshot.providers.get(), snapshot.template(templateId), snapshot.deliveryIdInData.get()]);
    if ('error' in template) return template;
    if ('error' in providers) return providers;
    return { providers: providers.providers, template: template.template, templateOptions: template.templateOptions, deliveryIdInData };
  }
}
