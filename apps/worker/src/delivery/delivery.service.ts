import type { Queue } from 'bullmq';
import type { Logger } from 'pino';
import type { CompiledTemplate, TemplateSource } from '@herald/core';
import { retryJob } from '@herald/core';
import type { Db, LoadedProvider } from '@herald/db';
import type { PushProvider } from '@herald/providers';
import { decide, type Attempt, type Decisions, type RetryPolicy } from './decide';
import { emptyDecisions, OutcomeWriter } from './outcome-writer';
import { stringifyData, toPushMessage, type RenderedNotification } from './message';
import type { SendRateLimiter } from './rate-limiter';

export interface DeliveryDeps {
  db: Db;
  queue: Queue;
  logger: Logger;
  loadProviders(projectId: string): Promise<LoadedProvider[]>;
  /** The live client of a stored provider configuration (shared across jobs). */
  client(provider: LoadedProvider): PushProvider;
  rateLimiter: SendRateLimiter;
  compile(source: TemplateSource): CompiledTemplate;
  policy: RetryPolicy;
  batchSize: number;
  /** Observes outcomes (metrics). */
  observe?: DeliveryObserver;
}

export interface DeliveryObserver {
  batch?(provider: string, size: number, seconds: number): void;
  outcomes?(d: Decisions): void;
  failover?(count: number): void;
  finished?(status: string): void;
}

interface PendingRow {
  id: string;
  deviceId: string | null;
  attempts: number;
  providerConfigId: string | null;
  deviceToken: string | null;
  platform: string | null;
}

type NotificationRow = NonNullable<Awaited<ReturnType<Db['notification']['findUnique']>>>;

const TERMINAL = new Set(['completed', 'partially_failed', 'failed']);

/** How long a claim on a row lasts: far longer than a batch takes (100 requests in flight, 10 s timeouts). */
const CLAIM_MS = 5 * 60_000;

function chunk<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Delivers one notification, or the due retries of some of its deliveries.
 *
 * The Delivery rows are the source of truth: they are created once (idempotently) from the devices of
 * the notification's users, every answer's outcome is written within moments of it (OutcomeWriter),
 * before the next batch is sent, a job claims a batch's rows before it sends them (`claim`), and a
 * re-run job (a worker killed mid-job, a stalled lock) only ever sends rows that are still pending.
 * So a device that was delivered to is never sent the same notification again; only the requests in
 * flight when a worker died may be repeated (CONTRACT §8).
 */
export class DeliveryService {
  constructor(private readonly deps: DeliveryDeps) {}

  /**
   * `claimant` names the job (its id): the rows it sends are claimed for it, and a run of the same job
   * (a BullMQ retry, a stalled job taken over) may take them back at once.
   */
  async deliver(notificationId: string, deliveryIds: string[] | undefined, claimant: string): Promise<void> {
    const { db, logger } = this.deps;
    const log = logger.child({ notificationId });
    const n = await db.notification.findUnique({ where: { id: notificationId } });
    if (!n) {
      // The API answers 503 and removes the row when it cannot enqueue; a job without a row delivers nothing.
      log.warn('job for an unknown notification; nothing to deliver');
      return;
    }
    if (TERMINAL.has(n.status)) return;
    if (n.status === 'queued') await db.notification.updateMany({ where: { id: n.id, status: 'queued' }, data: { status: 'processing' } });
    if (!deliveryIds) await this.plan(n, claimant);

    const context = await this.context(n, log);
    if ('error' in context) {
      await this.failPending(n.id, context.error, deliveryIds);
    } else {
      const rows = await this.pending(n.id, deliveryIds);
      await this.send(n, context, rows, claimant, log);
    }
    await this.finalize(n.id);
  }

  /** One Delivery row per device of the notification's users, one `no_devices` row per user without any. */
  private async plan(n: NotificationRow, claimant: string) {
    const { db } = this.deps;
    // Created claimed by the job that is about to send them: no second write per row to claim it.
    await db.$executeRaw`
      INSERT INTO "Delivery" ("id", "notificationId", "userId", "deviceId", "platform", "status", "claimedBy", "claimedUntil", "createdAt", "updatedAt")
      SELECT gen_random_uuid(), ${n.id}::uuid, dv."userId", dv."id", dv."platform", 'pending', ${claimant}, now() + (${CLAIM_MS} * interval '1 millisecond'), now(), now()
      FROM "Device" dv
      WHERE dv."projectId" = ${n.projectId}::uuid AND dv."userId" = ANY(${n.userIds}::text[])
      ON CONFLICT DO NOTHING`;
    await db.$executeRaw`
      INSERT INTO "Delivery" ("id", "notificationId", "userId", "deviceId", "platform", "status", "createdAt", "updatedAt")
      SELECT gen_random_uuid(), ${n.id}::uuid, u, NULL, NULL, 'no_devices', now(), now()
      FROM unnest(${n.userIds}::text[]) AS u
      WHERE NOT EXISTS (SELECT 1 FROM "Delivery" d WHERE d."notificationId" = ${n.id}::uuid AND d."userId" = u AND d."deviceId" IS NOT NULL)
      ON CONFLICT DO NOTHING`;
    await db.$executeRaw`
      UPDATE "Notification" SET "devices" = (SELECT count(*) FROM "Delivery" WHERE "notificationId" = ${n.id}::uuid AND "deviceId" IS NOT NULL), "updatedAt" = now()
      WHERE "id" = ${n.id}::uuid`;
  }

  private async context(n: NotificationRow, log: Logger): Promise<{ rendered: RenderedNotification; providers: LoadedProvider[] } | { error: string }> {
    const { db } = this.deps;
    const [template, config, providers] = await Promise.all([
      db.pushTemplate.findFirst({ where: { id: n.templateId, projectId: n.projectId } }),
      db.pushConfig.findUnique({ where: { projectId: n.projectId }, select: { enabled: true } }),
      this.deps.loadProviders(n.projectId),
    ]);
    if (!template) return { error: 'The template was deleted before delivery' };
    if (!config) return { error: 'Push notifications are not configured for this project' };
    if (!config.enabled) return { error: 'Push notifications are disabled for this project' };
    if (providers.length === 0) return { error: 'No enabled push provider is configured for this project' };
    let compiled: CompiledTemplate;
    try {
      compiled = this.deps.compile({ id: template.id, updatedAt: template.updatedAt, title: template.title, body: template.body, data: template.data });
    } catch (err) {
      log.warn({ err: { message: (err as Error).message } }, 'template cannot be rendered');
      return { error: 'The template cannot be rendered' };
    }
    const { title, body, data } = compiled.render((n.variables ?? {}) as Record<string, unknown>);
    return {
      rendered: { title, body, imageUrl: n.imageUrl ?? undefined, data: stringifyData(data, n.data as Record<string, unknown> | null) },
      providers,
    };
  }

  /** Pending rows with their device. The first pass leaves rows with a scheduled retry to their retry job. */
  private pending(notificationId: string, deliveryIds?: string[]): Promise<PendingRow[]> {
    const { db } = this.deps;
    if (deliveryIds) {
      return db.$queryRaw<PendingRow[]>`
        SELECT d."id", d."deviceId", d."attempts", d."providerConfigId", dv."deviceToken", dv."platform"
        FROM "Delivery" d LEFT JOIN "Device" dv ON dv."id" = d."deviceId"
        WHERE d."notificationId" = ${notificationId}::uuid AND d."status" = 'pending' AND d."id" = ANY(${deliveryIds}::uuid[])
        ORDER BY d."id"`;
    }
    return db.$queryRaw<PendingRow[]>`
      SELECT d."id", d."deviceId", d."attempts", d."providerConfigId", dv."deviceToken", dv."platform"
      FROM "Delivery" d LEFT JOIN "Device" dv ON dv."id" = d."deviceId"
      WHERE d."notificationId" = ${notificationId}::uuid AND d."status" = 'pending'
        AND (d."nextAttemptAt" IS NULL OR d."nextAttemptAt" <= now())
      ORDER BY d."id"`;
  }

  private async send(n: NotificationRow, ctx: { rendered: RenderedNotification; providers: LoadedProvider[] }, rows: PendingRow[], claimant: string, log: Logger) {
    const { providers } = ctx;
    const gone = rows.filter((r) => !r.deviceToken);
    if (gone.length) await this.persist(n.id, null, { ...emptyDecisions(), fail: gone.map((r) => ({ deliveryId: r.id, error: 'The device was unregistered before delivery' })) });

    // Rows carry the provider they are on (after a failover or a scheduled retry); start there.
    const stages: Attempt[][] = providers.map(() => []);
    const device = new Map<string, PendingRow>();
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
        if (down) {
          // Credentials rejected earlier in this job: do not knock again, go straight to the next provider.
          const moved = batch.map((a) => ({ deliveryId: a.deliveryId, error: 'Provider credentials were rejected' }));
          if (next) {
            await this.persist(n.id, provider.id, { ...emptyDecisions(), failover: moved }, next.id);
            stages[i + 1].push(...batch.map((a) => ({ ...a, attempts: 0 })));
            this.deps.observe?.failover?.(batch.length);
          } else await this.persist(n.id, provider.id, { ...emptyDecisions(), fail: moved });
          continue;
        }
        // Rows another job is sending right now are left to it.
        const mine = await this.claim(batch, claimant);
        if (!mine.length) continue;
        const { granted, waitMs } = await this.deps.rateLimiter.take(n.projectId, mine.length);
        const now = mine.slice(0, granted);
        const later = mine.slice(granted);
        if (later.length) await this.schedule(n.id, provider.id, later.map((a) => ({ deliveryId: a.deliveryId, attempts: a.attempts, delayMs: waitMs, error: 'throttled' })));
        if (!now.length) continue;

        const messages = now.map((a) => {
          const row = device.get(a.deliveryId)!;
          return toPushMessage(ctx.rendered, row.deviceToken!, row.platform ?? 'android');
        });
        // Outcomes are written while the batch is being sent (see OutcomeWriter), each write with its retries.
        const writer = new OutcomeWriter(
          now,
          (attempts, results) => decide(attempts, results, Boolean(next), this.deps.policy),
          async (d) => {
            await this.persist(n.id, provider.id, d, next?.id);
            if (d.retry.length) await this.enqueueRetry(n.id, d.retry);
          },
        );
        const started = process.hrtime.bigint();
        const results = await this.deps.client(provider).send(messages, (index, result) => writer.add(index, result));
        this.deps.observe?.batch?.(provider.provider, now.length, Number(process.hrtime.bigint() - started) / 1e9);
        const d = await writer.finish(results);
        this.deps.observe?.outcomes?.(d);
        if (d.providerDown) {
          down = true;
          log.warn({ providerConfigId: provider.id }, 'provider rejected the credentials; failing over');
        }
        if (d.failover.length && next) {
          const failed = new Set(d.failover.map((f) => f.deliveryId));
          stages[i + 1].push(...now.filter((a) => failed.has(a.deliveryId)).map((a) => ({ ...a, attempts: 0 })));
          this.deps.observe?.failover?.(d.failover.length);
        }
      }
    }
  }

  /**
   * Claims the batch's rows that are still pending and not being sent by another job: one job sends a
   * row at a time, even when the sweeper has queued its retry again while the first job is waiting in
   * a backlog. A claim ends with the row's outcome, is released when the row is rescheduled or moved to
   * another provider, and lapses after `CLAIM_MS` (a job that died and is never run again).
   */
  private async claim(batch: Attempt[], claimant: string): Promise<Attempt[]> {
    if (!batch.length) return batch;
    const ids = batch.map((a) => a.deliveryId);
    // Rows this job holds with most of the claim left (planned by it) are not written again.
    const claimed = await this.deps.db.$queryRaw<{ id: string }[]>`
      WITH held AS (
        SELECT "id" FROM "Delivery"
        WHERE "id" = ANY(${ids}::uuid[]) AND "status" = 'pending' AND "claimedBy" = ${claimant}
          AND "claimedUntil" > now() + (${CLAIM_MS / 2} * interval '1 millisecond')
      ), taken AS (
        UPDATE "Delivery" SET "claimedBy" = ${claimant}, "claimedUntil" = now() + (${CLAIM_MS} * interval '1 millisecond')
        WHERE "id" = ANY(${ids}::uuid[]) AND "status" = 'pending' AND "id" NOT IN (SELECT "id" FROM held)
          AND ("claimedUntil" IS NULL OR "claimedUntil" < now() OR "claimedBy" = ${claimant})
        RETURNING "id"
      )
      SELECT "id" FROM held UNION ALL SELECT "id" FROM taken`;
    const mine = new Set(claimed.map((r) => r.id));
    return batch.filter((a) => mine.has(a.deliveryId));
  }

  /** A batch's outcomes and the notification's counters, in one transaction. */
  private async persist(notificationId: string, providerConfigId: string | null, d: Decisions, nextProviderId?: string) {
    const { db } = this.deps;
    const statements = [];
    if (d.sent.length) {
      statements.push(db.$executeRaw`
        UPDATE "Delivery" AS d SET "status" = 'sent', "providerConfigId" = ${providerConfigId}::uuid, "providerMessageId" = v.mid,
          "error" = NULL, "nextAttemptAt" = NULL, "updatedAt" = now()
        FROM unnest(${d.sent.map((s) => s.deliveryId)}::uuid[], ${d.sent.map((s) => s.providerMessageId)}::text[]) AS v(id, mid)
        WHERE d."id" = v.id AND d."status" = 'pending'`);
    }
    if (d.fail.length) {
      statements.push(db.$executeRaw`
        UPDATE "Delivery" AS d SET "status" = 'failed', "providerConfigId" = ${providerConfigId}::uuid, "error" = v.err, "nextAttemptAt" = NULL, "updatedAt" = now()
        FROM unnest(${d.fail.map((f) => f.deliveryId)}::uuid[], ${d.fail.map((f) => f.error)}::text[]) AS v(id, err)
        WHERE d."id" = v.id AND d."status" = 'pending'`);
    }
    if (d.prune.length) {
      statements.push(db.$executeRaw`
        UPDATE "Delivery" AS d SET "status" = 'failed', "providerConfigId" = ${providerConfigId}::uuid, "error" = v.err, "tokenRemoved" = true,
          "nextAttemptAt" = NULL, "updatedAt" = now()
        FROM unnest(${d.prune.map((p) => p.deliveryId)}::uuid[], ${d.prune.map((p) => p.error)}::text[]) AS v(id, err)
        WHERE d."id" = v.id AND d."status" = 'pending'`);
      statements.push(db.$executeRaw`DELETE FROM "Device" WHERE "id" = ANY(${d.prune.map((p) => p.deviceId)}::uuid[])`);
    }
    if (d.failover.length && nextProviderId) {
      statements.push(db.$executeRaw`
        UPDATE "Delivery" AS d SET "providerConfigId" = ${nextProviderId}::uuid, "attempts" = 0, "error" = v.err, "nextAttemptAt" = NULL,
          "claimedBy" = NULL, "claimedUntil" = NULL, "updatedAt" = now()
        FROM unnest(${d.failover.map((f) => f.deliveryId)}::uuid[], ${d.failover.map((f) => f.error)}::text[]) AS v(id, err)
        WHERE d."id" = v.id AND d."status" = 'pending'`);
    }
    if (d.retry.length) statements.push(this.retryUpdate(providerConfigId, d.retry));
    const failed = d.fail.length + d.prune.length;
    if (d.sent.length || failed) {
      statements.push(db.$executeRaw`
        UPDATE "Notification" SET "sent" = "sent" + ${d.sent.length}, "failed" = "failed" + ${failed},
          "invalidTokensRemoved" = "invalidTokensRemoved" + ${d.prune.length}, "updatedAt" = now()
        WHERE "id" = ${notificationId}::uuid`);
    }
    if (statements.length) await db.$transaction(statements);
  }

  private retryUpdate(providerConfigId: string | null, retry: Decisions['retry']) {
    return this.deps.db.$executeRaw`
      UPDATE "Delivery" AS d SET "providerConfigId" = ${providerConfigId}::uuid, "attempts" = v.att, "error" = v.err,
        "nextAttemptAt" = now() + (v.delay * interval '1 millisecond'), "claimedBy" = NULL, "claimedUntil" = NULL, "updatedAt" = now()
      FROM unnest(${retry.map((r) => r.deliveryId)}::uuid[], ${retry.map((r) => r.attempts)}::int[], ${retry.map((r) => r.delayMs)}::int[], ${retry.map((r) => r.error)}::text[])
        AS v(id, att, delay, err)
      WHERE d."id" = v.id AND d."status" = 'pending'`;
  }

  /** Throttled rows: due again when the bucket has refilled; not an attempt. */
  private async schedule(notificationId: string, providerConfigId: string, rows: Decisions['retry']) {
    await this.retryUpdate(providerConfigId, rows);
    await this.enqueueRetry(notificationId, rows);
  }

  /** Delayed work, never a sleep: the batch comes back as a `retry` job when its longest delay has passed. */
  private async enqueueRetry(notificationId: string, rows: Decisions['retry']) {
    const delay = Math.max(...rows.map((r) => r.delayMs));
    await this.deps.queue.add(retryJob.name, { notificationId, deliveryIds: rows.map((r) => r.deliveryId) }, { ...retryJob.options, delay });
  }

  private async failPending(notificationId: string, error: string, deliveryIds?: string[]) {
    const { db } = this.deps;
    const where = { notificationId, status: 'pending' as const, ...(deliveryIds ? { id: { in: deliveryIds } } : {}) };
    await db.$transaction(async (tx) => {
      const { count } = await tx.delivery.updateMany({ where, data: { status: 'failed', error, nextAttemptAt: null } });
      if (count) await tx.notification.update({ where: { id: notificationId }, data: { failed: { increment: count } } });
    });
  }

  /** Once nothing is pending, the notification's final status follows from its counters. */
  private async finalize(notificationId: string) {
    const rows = await this.deps.db.$queryRaw<{ status: string }[]>`
      UPDATE "Notification" SET
        "status" = (CASE WHEN "sent" = 0 THEN 'failed' WHEN "sent" >= "devices" THEN 'completed' ELSE 'partially_failed' END)::"NotificationStatus",
        "completedAt" = now(), "updatedAt" = now()
      WHERE "id" = ${notificationId}::uuid AND "status" IN ('queued', 'processing')
        AND NOT EXISTS (SELECT 1 FROM "Delivery" WHERE "notificationId" = ${notificationId}::uuid AND "status" = 'pending')
      RETURNING "status"::text AS "status"`;
    if (rows[0]) this.deps.observe?.finished?.(rows[0].status);
  }
}
