import type { Logger } from 'pino';
import { chunk, dueByZone, isFinalStatus, mergePushOptions, readPushOptions, TemplateRenderError, type CompiledTemplate, type PushOptions } from '@herald/core';
import type { LoadedProvider } from '@herald/db';
import type { PushProvider, TokenResult } from '@herald/providers';
import { decide, providerDown, type Attempt, type Decision, type RetryPolicy } from './decide';
import type { FanOut } from './fan-out';
import { GroupCommit } from './group-commit';
import { collapseIdOf, stringifyData, toPushMessage, type RenderedNotification } from './message';
import type { NotificationOutcome, OutcomeWriter } from './outcome-writer';
import type { ProjectContext, ProjectContexts } from './project-context';
import type { SendRateLimiter } from './rate-limiter';
import type { Claimed, DeliveryRepository, DeliveryRow, Finished, NotificationRow, Outcome, PlanItem } from './repository';
import { Slots } from './slots';

export interface DeliveryDeps {
  repository: DeliveryRepository;
  contexts: ProjectContexts;
  outcomes: OutcomeWriter;
  logger: Logger;
  /** The live client of a stored provider configuration (shared across jobs). */
  client(provider: LoadedProvider): PushProvider;
  rateLimiter: SendRateLimiter;
  policy: RetryPolicy;
  batchSize: number;
  /** Recipients of the notifications being delivered at once, at most (bounds the memory a worker uses). */
  maxRecipientsInFlight: number;
  /** Notifications being delivered at once, at most: enough to keep every provider stream busy, few enough that their state dies young. */
  maxNotificationsInFlight: number;
  /** How often the claims of running jobs are extended (well within the repository's claim duration). */
  claimRenewMs: number;
  /** Queues the delayed job of each moment a notification's deliveries were held for (local time, quiet hours). */
  enqueueHeld(held: { notificationId: string; dueAt: number }[]): Promise<void>;
  observe?: DeliveryObserver;
  /** Plans broadcasts' audiences page by page (fan-out.ts). */
  fanOut?: FanOut;
}

/** What a worker reports about delivery (metrics; hooks such as webhooks). */
export interface DeliveryObserver {
  batch?(provider: string, size: number, seconds: number): void;
  /** Outcomes as they are written. */
  outcomes?(outcomes: readonly NotificationOutcome[]): void;
  failover?(count: number): void;
  /** A notification reached its final status: reported once per notification, after it is written. */
  finished?(n: Finished): void;
  /** A device was deleted because its token is dead (after the write). */
  pruned?(p: { projectId: string; notificationId: string; deviceId: string }): void;
}

/** Observers that all hear the same events. */
export function observers(...list: (DeliveryObserver | undefined)[]): DeliveryObserver {
  const all = list.filter((o): o is DeliveryObserver => Boolean(o));
  return {
    batch: (...a) => all.forEach((o) => o.batch?.(...a)),
    outcomes: (...a) => all.forEach((o) => o.outcomes?.(...a)),
    failover: (...a) => all.forEach((o) => o.failover?.(...a)),
    finished: (...a) => all.forEach((o) => o.finished?.(...a)),
    pruned: (...a) => all.forEach((o) => o.pruned?.(...a)),
  };
}

/** What a job asks for: a notification's delivery, or the due retries of some of its deliveries. */
export interface DeliveryWork {
  notificationId: string;
  /** A retry job's deliveries; absent for a notification's deliver job. */
  deliveryIds?: string[];
  /**
   * Names this run of the job: the rows it sends are claimed for it and renewed while it runs. A run
   * that died stops renewing, and its claims lapse; a run that only looks dead (a stalled lock) keeps
   * them, so a second run never sends what the first is sending.
   */
  claimant: string;
}

/** The rows a run holds (their claims renewed), and how many of them it handed back. */
interface Holding {
  claimant: string;
  ids: string[];
  handedBack: number;
}

/** The rendered notification of each user's messages: personalised bulk renders once per distinct variable set. */
type Renderings = (userId: string) => RenderedNotification;

/**
 * Some rows of the job are held by another run that is sending them, or that died a moment ago and
 * whose claims have not lapsed yet: the job is run again later (BullMQ's backoff), when they are
 * either sent or free.
 */
export class RowsHeldElsewhere extends Error {
  override name = 'RowsHeldElsewhere';
  constructor(count: number) {
    super(`${count} pending deliveries are held by another job run; trying again later`);
  }
}

/**
 * The worker is shutting down and this job had rows it had not sent: their claims were released and
 * the job runs again (BullMQ's backoff) on a worker that is not stopping. Nothing sent is sent again.
 */
export class HandedBack extends Error {
  override name = 'HandedBack';
  constructor(count: number) {
    super(`${count} pending deliveries handed back: the worker is shutting down`);
  }
}

/**
 * Delivers notifications, many at once, as the steps of docs/delivery.md: load, plan (or claim),
 * context, render, send, record. Every step that touches the database runs once for all the
 * notifications that reach it together (`GroupCommit`), so its cost is paid per batch, not per
 * notification; the final status is written by the write that resolves a notification's last
 * pending delivery.
 *
 * The Delivery rows are the source of truth: they are created once, claimed by the job that sends
 * them, and a job only ever sends rows that are still pending, so a device that was delivered to is
 * never sent the same notification again; only requests in flight when a worker died may be repeated.
 */
export class DeliveryService {
  private readonly loads: GroupCommit<string, NotificationRow | null>;
  private readonly plans: GroupCommit<PlanItem, DeliveryRow[]>;
  private readonly claims: GroupCommit<{ deliveryId: string; claimant: string }, Claimed>;
  /** Notifications being delivered, from their load on: what waits for a place is a job id, not a loaded row. */
  private readonly notifications: Slots;
  /** Their recipients. */
  private readonly recipients: Slots;
  /** The rows that runs under way hold, whose claims are renewed. */
  private readonly held = new Set<Holding>();
  private renewer?: NodeJS.Timeout;
  /** Shutting down: no new batch is sent; what is left is handed back (`handBack`). */
  private handingBack = false;

  constructor(private readonly deps: DeliveryDeps) {
    const { repository } = deps;
    this.notifications = new Slots(deps.maxNotificationsInFlight);
    this.recipients = new Slots(deps.maxRecipientsInFlight);
    this.loads = new GroupCommit(
      async (ids) => {
        const rows = new Map((await repository.load(ids)).map((n) => [n.id, n]));
        return ids.map((id) => rows.get(id) ?? null);
      },
      { concurrency: 2 },
    );
    this.plans = new GroupCommit(async (items) => {
      const { rows, finished, held } = await repository.plan(items);
      // Before any of these notifications' rows are sent: a job lost here is found by the sweeper
      // once its rows are overdue, and the plan is not repeated for rows that exist.
      if (held.length) await deps.enqueueHeld(held);
      this.reportFinished(finished);
      const byNotification = new Map<string, DeliveryRow[]>();
      for (const r of rows) {
        const list = byNotification.get(r.notificationId);
        if (list) list.push(r);
        else byNotification.set(r.notificationId, [r]);
      }
      return items.map((i) => byNotification.get(i.notificationId) ?? []);
    });
    this.claims = new GroupCommit((items) => repository.claim(items), { maxItems: 5_000, concurrency: 2 });
  }

  /** Extends the claims of the runs under way every `claimRenewMs`, until `stop`. */
  start(): void {
    this.renewer ??= setInterval(() => {
      if (!this.held.size) return;
      this.deps.repository.renewClaims([...this.held]).catch((err: unknown) => this.deps.logger.warn({ err: { message: (err as Error).message } }, 'could not renew the claims of running jobs'));
    }, this.deps.claimRenewMs).unref();
  }

  /** No notification is being delivered at this moment. */
  get idle(): boolean {
    return this.notifications.inUse === 0;
  }

  stop(): void {
    clearInterval(this.renewer);
    this.renewer = undefined;
  }

  /**
   * For a shutdown: the jobs under way send no further batch. The answers of the batches in flight are
   * awaited and written; the rows not sent are released (no claim, so not marked `possiblyDelivered`)
   * and their jobs fail with `HandedBack`, to run again elsewhere.
   */
  handBack(): void {
    this.handingBack = true;
  }

  async deliver(work: DeliveryWork): Promise<void> {
    const leave = await this.notifications.acquire(1);
    try {
      await this.run(work);
    } finally {
      leave();
    }
  }

  private async run(work: DeliveryWork): Promise<void> {
    // Made when there is something to say: a child logger per notification costs CPU at thousands a second.
    let child: Logger | undefined;
    const log = () => (child ??= this.deps.logger.child({ notificationId: work.notificationId }));
    // 1. Load.
    let n = await this.loads.submit(work.notificationId);
    if (!n) {
      // The API answers 503 and removes the row when it cannot enqueue; a job without a row delivers nothing.
      log().warn('job for an unknown notification; nothing to deliver');
      return;
    }
    if (isFinalStatus(n.status)) return;
    // A scheduled notification's time has come: it starts like a queued one, unless it was canceled.
    if (n.status === 'scheduled') {
      if (!(await this.deps.repository.start(n.id))) return;
      n = { ...n, status: 'queued' };
    }
    // A broadcast's deliver job plans its audience page by page; each page is sent by a job of its own.
    if (n.audience && !work.deliveryIds) {
      if (!this.deps.fanOut) throw new Error('This worker cannot fan out a broadcast');
      await this.deps.fanOut.run(n);
      // A timed broadcast's delayed job of a moment: its held rows now due go out as pages.
      if (n.timing) await this.deps.fanOut.releaseDue(n.id);
      return;
    }
    const release = await this.recipients.acquire(work.deliveryIds?.length ?? n.recipients);
    try {
      // 2. Plan (or claim the rows of a retry), and meanwhile 3. the context: template, push config,
      // providers (cached per project).
      const [{ rows, held }, context] = await Promise.all([this.rows(n, work), this.deps.contexts.get(n.projectId, n.templateId)]);
      const holding = { claimant: work.claimant, ids: rows.map((r) => r.id), handedBack: 0 };
      this.held.add(holding);
      try {
        if (rows.length) await this.sendAll(n, rows, context, log, holding);
      } finally {
        this.held.delete(holding);
      }
      if (holding.handedBack) throw new HandedBack(holding.handedBack);
      if (held) throw new RowsHeldElsewhere(held);
    } finally {
      release();
    }
  }

  /** Steps 4 and 5 for the rows this job holds. */
  private async sendAll(n: NotificationRow, rows: DeliveryRow[], context: ProjectContext, log: () => Logger, holding: Holding) {
    if ('error' in context) return this.failAll(n, rows, context.error);
    // 4. Render once per notification (personalised bulk: once per distinct variable set).
    let rendered: Renderings;
    try {
      rendered = render(n, context);
    } catch (err) {
      // Never retried: the same variables fail the same way. (The API refuses what it can tell at acceptance.)
      const error = err instanceof TemplateRenderError ? err.message : `The template cannot be rendered: ${(err as Error).message}`;
      log().warn({ err: { message: error } }, 'the notification cannot be rendered');
      return this.failAll(n, rows, error);
    }
    // 5. Send, provider by provider, recording each answer as it comes in.
    await this.send(n, context.providers, rendered, rows, log, holding);
  }

  /** The rows this job sends, claimed for it, and how many of its rows another run holds. */
  private async rows(n: NotificationRow, work: DeliveryWork): Promise<{ rows: DeliveryRow[]; held: number }> {
    const claim = async (ids: string[]) => {
      const claimed = await Promise.all(ids.map((deliveryId) => this.claims.submit({ deliveryId, claimant: work.claimant })));
      const rows = claimed.filter((r): r is DeliveryRow => r !== null && r !== 'held' && r.notificationId === n.id);
      return { rows, held: claimed.filter((r) => r === 'held').length };
    };
    if (work.deliveryIds) return claim(work.deliveryIds);
    const planned = await this.plans.submit({ notificationId: n.id, claimant: work.claimant, schedule: await this.schedule(n) });
    if (n.status === 'queued') return { rows: planned, held: 0 };
    // Run again (a worker died, a lock stalled): the rows planned earlier that are still pending and due.
    const plannedIds = new Set(planned.map((r) => r.id));
    const earlier = await claim((await this.deps.repository.due(n.id)).filter((id) => !plannedIds.has(id)));
    return { rows: [...planned, ...earlier.rows], held: earlier.held };
  }

  /**
   * When a timed notification's devices are due, zone by zone (docs/delivery.md#local-time-and-quiet-hours):
   * computed once per zone, never per device. A dry run validates at once, but still reports when each
   * device would have received it.
   */
  private async schedule(n: NotificationRow): Promise<PlanItem['schedule']> {
    if (!n.timing) return undefined;
    const now = Date.now();
    const zones = await this.deps.repository.zones(n.id);
    return dueByZone(n.timing, zones, n.createdAt.getTime(), now).map((z) => ({ ...z, hold: !n.dryRun && z.due > now }));
  }

  private async send(n: NotificationRow, providers: LoadedProvider[], rendered: Renderings, rows: DeliveryRow[], log: () => Logger, holding: Holding) {
    const gone = rows.filter((r) => !r.deviceToken);
    const writes: Promise<void>[] = gone.map((r) => this.record(n, { kind: 'fail', deliveryId: r.id, providerConfigId: r.providerConfigId, error: 'The device was unregistered before delivery' }));

    // Rows carry the provider they are on (after a failover or a scheduled retry); start there.
    const stages: Attempt[][] = providers.map(() => []);
    const device = new Map<string, DeliveryRow>();
    for (const r of rows) {
      if (!r.deviceToken) continue;
      device.set(r.id, r);
      const at = providers.findIndex((p) => p.id === r.providerConfigId);
      // A provider since deleted or disabled: start again from the first one.
      stages[Math.max(0, at)].push({ deliveryId: r.id, deviceId: r.deviceId!, attempts: at >= 0 ? r.attempts : 0 });
    }

    for (let i = 0; i < providers.length; i++) {
      const provider = providers[i];
      const next = providers[i + 1];
      let down = false;
      for (const batch of chunk(stages[i], this.deps.batchSize)) {
        if (this.handingBack) {
          // Shutting down: released unsent, for the job's next run elsewhere.
          await this.deps.repository.release(holding.claimant, batch.map((a) => a.deliveryId));
          holding.handedBack += batch.length;
          continue;
        }
        if (down) {
          // Credentials rejected earlier in this job: do not knock again, go straight to the next provider
          // (written before that provider's answers, which would otherwise share a write with it).
          await Promise.all(batch.map((a) => this.moveOn(n, a, provider, next, 'Provider credentials were rejected')));
          if (next) stages[i + 1].push(...batch.map((a) => ({ ...a, attempts: 0 })));
          continue;
        }
        const d = await this.sendBatch(n, provider, next, batch, rendered, device);
        if (d.providerDown) {
          down = true;
          log().warn({ providerConfigId: provider.id }, 'provider rejected the credentials; failing over');
        }
        if (d.failover.length && next) {
          stages[i + 1].push(...d.failover.map((a) => ({ ...a, attempts: 0 })));
          this.deps.observe?.failover?.(d.failover.length);
        }
      }
    }
    await Promise.all(writes);
  }

  /**
   * One batch on one provider: the rate limit first (what is over it waits as a retry that does not
   * count as an attempt), then the sends, each answer decided and recorded as it comes in. Resolves,
   * once every outcome is written, with whether the provider rejected our credentials and the
   * attempts that move on to the next provider.
   */
  private async sendBatch(n: NotificationRow, provider: LoadedProvider, next: LoadedProvider | undefined, batch: Attempt[], rendered: Renderings, device: Map<string, DeliveryRow>): Promise<{ providerDown: boolean; failover: Attempt[] }> {
    const out = { providerDown: false, failover: [] as Attempt[] };
    const writes: Promise<void>[] = [];
    const { granted, waitMs } = await this.deps.rateLimiter.take(n.projectId, batch.length);
    for (const a of batch.slice(granted)) {
      writes.push(this.record(n, { kind: 'retry', deliveryId: a.deliveryId, providerConfigId: provider.id, attempts: a.attempts, delayMs: waitMs, error: 'throttled' }));
    }
    const now = batch.slice(0, granted);
    if (now.length) {
      const reported = new Array<boolean>(now.length).fill(false);
      const take = (index: number, result: TokenResult) => {
        if (reported[index]) return;
        reported[index] = true;
        const a = now[index];
        const d = decide(a, result, Boolean(next), this.deps.policy, n.dryRun);
        if (providerDown(result)) out.providerDown = true;
        if (d.kind === 'failover') out.failover.push(a);
        writes.push(this.deps.outcomes.record(toOutcome(d, a, n, provider, next)));
      };
      const collapseId = collapseIdOf(n.id);
      const messages = now.map((a) => {
        const row = device.get(a.deliveryId)!;
        return toPushMessage(rendered(row.userId), row.deviceToken!, row.platform ?? 'android', row.id, collapseId);
      });
      const started = process.hrtime.bigint();
      // A dry run: FCM validates each message (validate_only) and delivers none.
      const results = await this.deps.client(provider).send(messages, take, { validateOnly: n.dryRun });
      this.deps.observe?.batch?.(provider.provider, now.length, Number(process.hrtime.bigint() - started) / 1e9);
      // A provider may answer a whole batch at once (it could not get an access token): only in the array.
      results.forEach((r, i) => take(i, r));
    }
    await Promise.all(writes);
    return out;
  }

  /** A row that skips a provider whose credentials were rejected: to the next one, or failed without one. */
  private moveOn(n: NotificationRow, a: Attempt, provider: LoadedProvider, next: LoadedProvider | undefined, error: string) {
    if (next) {
      this.deps.observe?.failover?.(1);
      return this.record(n, { kind: 'failover', deliveryId: a.deliveryId, providerConfigId: next.id, error });
    }
    return this.record(n, { kind: 'fail', deliveryId: a.deliveryId, providerConfigId: provider.id, error });
  }

  private failAll(n: NotificationRow, rows: DeliveryRow[], error: string) {
    return Promise.all(rows.map((r) => this.record(n, { kind: 'fail', deliveryId: r.id, providerConfigId: r.providerConfigId, error }))).then(() => undefined);
  }

  private record(n: NotificationRow, outcome: Outcome): Promise<void> {
    return this.deps.outcomes.record({ ...outcome, notificationId: n.id, projectId: n.projectId });
  }

  private reportFinished(finished: Finished[]) {
    for (const f of finished) this.deps.observe?.finished?.(f);
  }
}

/** The row to write for a decision on one provider (an object literal per kind: no spreading at thousands a second). */
export function toOutcome(d: Decision, a: Attempt, n: NotificationRow, provider: LoadedProvider, next: LoadedProvider | undefined): NotificationOutcome {
  const { deliveryId } = a;
  const { id: notificationId, projectId } = n;
  switch (d.kind) {
    case 'sent':
      return { kind: 'sent', deliveryId, providerConfigId: provider.id, providerMessageId: d.providerMessageId, notificationId, projectId };
    case 'validated':
      return { kind: 'validated', deliveryId, providerConfigId: provider.id, notificationId, projectId };
    case 'prune':
      return { kind: 'prune', deliveryId, providerConfigId: provider.id, deviceId: a.deviceId, error: d.error, notificationId, projectId };
    case 'failover':
      // Decided only when there is a next provider.
      return { kind: 'failover', deliveryId, providerConfigId: next!.id, error: d.error, notificationId, projectId };
    case 'retry':
      return { kind: 'retry', deliveryId, providerConfigId: provider.id, attempts: d.attempts, delayMs: d.delayMs, error: d.error, possiblyDelivered: d.possiblyDelivered, notificationId, projectId };
    case 'fail':
      return { kind: 'fail', deliveryId, providerConfigId: provider.id, error: d.error, notificationId, projectId };
  }
}

/**
 * The messages' content: the template rendered with the notification's variables, its data overlaid
 * by the send's, the template's default options overlaid by the send's, and whether the messages
 * carry their delivery id (the project's setting). A personalised bulk renders once per distinct
 * variable set (a recipient's own variables merged over the shared ones).
 */
export function render(n: NotificationRow, context: { template: CompiledTemplate; templateOptions: PushOptions; deliveryIdInData?: boolean }): Renderings {
  const shared = n.variables ?? {};
  const options = mergePushOptions(context.templateOptions, readPushOptions(n.options));
  const one = (variables: Record<string, unknown>): RenderedNotification => {
    const { title, body, data } = context.template.render(variables);
    return { title, body, imageUrl: n.imageUrl ?? undefined, data: stringifyData(data, n.data), options, dataOnly: n.dataOnly, deliveryIdInData: context.deliveryIdInData };
  };
  const common = one(shared);
  const byVariables = new Map<string, RenderedNotification>();
  const byUser = new Map<string, RenderedNotification>();
  for (const [userId, own] of Object.entries(n.recipientVariables ?? {})) {
    const merged = { ...shared, ...own };
    const key = JSON.stringify(merged);
    let rendered = byVariables.get(key);
    if (!rendered) byVariables.set(key, (rendered = one(merged)));
    byUser.set(userId, rendered);
  }
  return (userId) => byUser.get(userId) ?? common;
}
