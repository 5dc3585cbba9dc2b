import type { Logger } from 'pino';
import type { Pool } from 'pg';
import { fanOutPageJobFor, type RolloutStageFigures } from '@herald/core';
import { haltedEvent, SYSTEM_AUDIT_SOURCE, writeAudit, type Db, type WebhookEvents } from '@herald/db';
import { HELD_FOR_STAGE } from './fan-out';
import { inIndexOrder } from './sql';

/** A rollout as the notification row holds it (docs/audiences.md#staged-rollout). */
export interface RolloutState {
  stages: number[];
  waitSeconds: number;
  haltWhen: { failureRate?: number; invalidTokenRate?: number };
  currentStage: number;
  stageFigures: RolloutStageFigures[];
  /** When the current stage's last delivery was final (its figures taken): the wait counts from it. */
  stageEndedAt?: string | null;
  haltedAt: string | null;
  haltReason: string | null;
}

export interface RolloutDeps {
  db: Db;
  pool: Pool;
  events: WebhookEvents;
  enqueue(job: ReturnType<typeof fanOutPageJobFor>): Promise<void>;
  /** Deliveries released per page job. */
  pageSize: number;
  logger: Logger;
}

const percent = (rate: number) => `${Math.round(rate * 1000) / 10} %`;

/** Why a stage's figures halt the rollout, or null when they are within the bounds. */
export function haltReasonOf(figures: RolloutStageFigures, haltWhen: RolloutState['haltWhen'], stageIndex: number): string | null {
  const attempted = figures.sent + figures.failed;
  if (attempted === 0) return null;
  const failureRate = figures.failed / attempted;
  const invalidTokenRate = figures.invalidTokens / attempted;
  if (haltWhen.invalidTokenRate !== undefined && invalidTokenRate > haltWhen.invalidTokenRate) {
    return `Invalid-token rate ${percent(invalidTokenRate)} over the bound ${percent(haltWhen.invalidTokenRate)} in stage ${stageIndex + 1}`;
  }
  if (haltWhen.failureRate !== undefined && failureRate > haltWhen.failureRate) {
    return `Failure rate ${percent(failureRate)} over the bound ${percent(haltWhen.failureRate)} in stage ${stageIndex + 1}`;
  }
  return null;
}

const ACTIVE = `SELECT "id" FROM "Notification" WHERE "rollout" IS NOT NULL AND "status" = 'processing' AND "fannedOut" LIMIT 100`;

/**
 * Staged rollouts' progress, checked every second by every worker: a stage's held deliveries are
 * released (queued as page jobs) when the stage starts; once its last delivery is final its figures
 * are taken, and `waitSeconds` later they are weighed — over a bound, the broadcast is `halted` (a
 * webhook event and an audit entry by the system), else the next stage starts. Each step runs under
 * the notification's row lock (SKIP LOCKED: one worker at a time) and only moves forward, so a
 * worker that dies mid-step leaves it to the next tick of any worker.
 */
export class RolloutMonitor {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly deps: RolloutDeps) {}

  start(intervalMs = 1000): void {
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.tick()
        .catch((err: unknown) => this.deps.logger.warn({ err: { message: (err as Error).message } }, 'rollout check failed; it runs again'))
        .finally(() => (this.running = undefined));
    }, intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One pass over the rollouts in flight. */
  async tick(): Promise<void> {
    const { rows } = await this.deps.pool.query<{ id: string }>(ACTIVE);
    for (const { id } of rows) await this.step(id);
  }

  /** Releases the current stage's held deliveries, then weighs the stage if it has ended. */
  async step(id: string): Promise<void> {
    const released = await this.releaseCurrentStage(id);
    if (released) return;
    const halted = await this.weigh(id);
    if (halted) await this.dispatchHalted(id, halted.webhookDeliveries);
  }

  /**
   * Queues the current stage's deliveries still held, a page at a time (each page released and
   * queued before the next): a release lost between the two is sent by the sweeper as any pending
   * delivery without a job.
   */
  private async releaseCurrentStage(id: string): Promise<number> {
    let total = 0;
    for (;;) {
      const { rows } = await inIndexOrder<{ id: string; waits: boolean }>(
        this.deps.pool,
        // A row also held for its local moment (a timed broadcast, quiet hours) waits on for it: its
        // moment's delayed job sends it (fan-out.ts releaseDue), or this release once the moment passed.
        // One table in the page's scan, read in the order of "Delivery_held_for_stage_idx": a page reads
        // its rows only, whatever the statistics (joined to Notification, a stale plan sorted every held row).
        `UPDATE "Delivery" SET "nextAttemptAt" = CASE WHEN "notBefore" > now() THEN "notBefore" END, "heldForStage" = NULL, "updatedAt" = now()
         WHERE "id" IN (
           SELECT d."id" FROM "Delivery" d
           WHERE d."notificationId" = $1::uuid AND d."nextAttemptAt" = '${HELD_FOR_STAGE}' AND d."status" = 'pending'
             AND d."heldForStage" <= (SELECT (n."rollout"->>'currentStage')::int FROM "Notification" n WHERE n."id" = $1::uuid AND n."status" = 'processing')
           ORDER BY d."heldForStage", d."id" LIMIT $2 FOR UPDATE SKIP LOCKED
         ) AND "nextAttemptAt" = '${HELD_FOR_STAGE}'
         RETURNING "id", "nextAttemptAt" IS NOT NULL AS "waits"`,
        [id, this.deps.pageSize],
      );
      if (!rows.length) return total;
      total += rows.length;
      const ids = rows.filter((r) => !r.waits).map((r) => r.id).sort();
      if (ids.length) await this.deps.enqueue(fanOutPageJobFor(id, ids, `stage-${ids[ids.length - 1]}`));
    }
  }

  /**
   * Takes an ended stage's figures, then after the wait halts or starts the next stage. On a halt, the
   * `notification.halted` event is written in the halt's own transaction: its webhook deliveries.
   */
  private async weigh(id: string): Promise<{ webhookDeliveries: string[] } | undefined> {
    return this.deps.db.$transaction(async (tx) => {
      const [n] = await tx.$queryRawUnsafe<{ projectId: string; rollout: RolloutState }[]>(
        `SELECT "projectId", "rollout" FROM "Notification" WHERE "id" = $1::uuid AND "status" = 'processing' AND "fannedOut" AND "rollout" IS NOT NULL FOR NO KEY UPDATE SKIP LOCKED`,
        id,
      );
      if (!n) return undefined;
      const r = n.rollout;
      const k = r.currentStage;
      // The last stage ends the notification as any broadcast ends: by its last delivery.
      if (k >= r.stages.length - 1) return undefined;
      if (!r.stageEndedAt) {
        const [figures] = await tx.$queryRawUnsafe<{ pending: number; devices: number; sent: number; failed: number; invalidTokens: number }[]>(
          `SELECT count(*) FILTER (WHERE "status" = 'pending')::int AS "pending", count(*)::int AS "devices",
             count(*) FILTER (WHERE "status" IN ('sent', 'validated'))::int AS "sent", count(*) FILTER (WHERE "status" = 'failed')::int AS "failed",
             count(*) FILTER (WHERE "tokenRemoved")::int AS "invalidTokens"
           FROM "Delivery" WHERE "notificationId" = $1::uuid AND "rolloutStage" = $2`,
          id,
          k,
        );
        if (figures.pending > 0) return undefined;
        const { pending: _, ...rest } = figures;
        const next: RolloutState = { ...r, stageFigures: [...r.stageFigures.slice(0, k), { percent: r.stages[k], ...rest }], stageEndedAt: new Date().toISOString() };
        await this.save(tx, id, next);
        return undefined;
      }
      if (Date.now() < Date.parse(r.stageEndedAt) + r.waitSeconds * 1000) return undefined;
      const reason = haltReasonOf(r.stageFigures[k], r.haltWhen, k);
      if (reason) {
        const haltedAt = new Date().toISOString();
        await this.save(tx, id, { ...r, haltedAt, haltReason: reason }, 'halted');
        await writeAudit(tx, SYSTEM_AUDIT_SOURCE, {
          projectId: n.projectId,
          action: 'notification.halted',
          target: { type: 'notification', id },
          changes: { status: { before: 'processing', after: 'halted' }, haltReason: { before: null, after: reason } },
        });
        const halted = await tx.notification.findUniqueOrThrow({ where: { id } });
        const recorded = await this.deps.events.record(n.projectId, [haltedEvent(halted)], {}, tx);
        return { webhookDeliveries: recorded.flatMap((r) => r.deliveryIds) };
      }
      await this.save(tx, id, { ...r, currentStage: k + 1, stageEndedAt: null, haltedAt: null, haltReason: null });
      return undefined;
    });
  }

  private async save(tx: Pick<Db, '$executeRawUnsafe'>, id: string, rollout: RolloutState, status?: 'halted') {
    await tx.$executeRawUnsafe(
      `UPDATE "Notification" SET "rollout" = $2::jsonb, "status" = COALESCE($3::"NotificationStatus", "status"), "updatedAt" = now() WHERE "id" = $1::uuid`,
      id,
      JSON.stringify(rollout),
      status ?? null,
    );
  }

  /** Queues the first attempt of the halt's webhook deliveries, written with the halt; one lost here is queued by the webhook sweeper. */
  private async dispatchHalted(id: string, deliveryIds: string[]) {
    try {
      await this.deps.events.dispatch(deliveryIds);
    } catch (err) {
      this.deps.logger.warn({ notificationId: id, err: { message: (err as Error).message } }, 'could not queue notification.halted; the webhook sweeper will');
    }
  }
}
