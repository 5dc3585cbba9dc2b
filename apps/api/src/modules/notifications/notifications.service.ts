import { randomUUID } from 'node:crypto';
import type { Queue } from 'bullmq';
import DataLoader from 'dataloader';
import { AppError, deliverJob, deliverJobId, pushUnavailableReason } from '@herald/core';
import { isForeignKeyViolation, sqlPool, sqlState, type Db, type Notification, type SqlPool } from '@herald/db';
import { PROJECT_NOT_FOUND } from '../../http/access';
import { page } from '../../http/pagination';
import type { ProjectSnapshot } from '../../project-cache/project-cache';
import { renderWithin } from '../templates/templates.service';

export const IDEMPOTENCY_WINDOW_MS = 24 * 3600 * 1000;

export const TEMPLATE_NOT_FOUND = 'Template not found';
export const NOTIFICATION_NOT_FOUND = 'Notification not found';

export interface SendInput {
  userIds: string[];
  templateId: string;
  variables?: Record<string, unknown>;
  imageUrl?: string;
  data?: Record<string, unknown>;
  bulk: boolean;
}

/** A notification about to be written and queued. */
interface Draft {
  id: string;
  projectId: string;
  templateId: string;
  userIds: string[];
  variables: Record<string, unknown>;
  data?: Record<string, unknown>;
  imageUrl?: string;
  bulk: boolean;
  idempotencyKey?: string;
}

/** `duplicate`: another notification of the project holds the draft's Idempotency-Key. */
type Admission = 'admitted' | 'duplicate';

const toAdmissionError = (err: unknown): Error => (isForeignKeyViolation(err) ? AppError.notFound(PROJECT_NOT_FOUND) : (err as Error));

/** Sends admitted in one write: at most this many rows in one INSERT and one queue round trip. */
const MAX_ADMISSION_BATCH = 200;

const accepted = (n: Pick<Notification, 'id' | 'bulk' | 'recipients'>) =>
  n.bulk ? { notificationId: n.id, status: 'queued' as const, recipients: n.recipients } : { notificationId: n.id, status: 'queued' as const };

const iso = (d: Date | null) => (d ? d.toISOString() : null);

const toSummary = (n: Notification) => ({
  id: n.id,
  status: n.status,
  templateId: n.templateId,
  createdAt: n.createdAt.toISOString(),
  completedAt: iso(n.completedAt),
  stats: { recipients: n.recipients, devices: n.devices, sent: n.sent, failed: n.failed, invalidTokensRemoved: n.invalidTokensRemoved },
});


/**
 * Accepts sends: validates everything that can be known before delivery, writes the notification
 * and enqueues its job. The API never renders for delivery and never calls a provider.
 *
 * The checks read the project's snapshot (no database round trip while nothing changed), and the
 * sends of concurrent requests are admitted together: one multi-row INSERT and one queue round trip
 * for all the sends that reach this point in the same event-loop turn.
 */
export class NotificationService {
  private readonly admissions = new DataLoader<Draft, Admission>((drafts) => this.admitBatch(drafts), {
    cache: false,
    maxBatchSize: MAX_ADMISSION_BATCH,
    batchScheduleFn: (flush) => setImmediate(flush),
  });

  private readonly pool: SqlPool;

  constructor(
    private readonly db: Db,
    private readonly queue: Queue,
  ) {
    this.pool = sqlPool(db);
  }

  /** Checks a send against the project's state, then admits it. */
  async send(state: ProjectSnapshot, input: SendInput, idempotencyKey?: string) {
    const { projectId } = state;
    if (idempotencyKey) {
      const replay = await this.replay(projectId, idempotencyKey);
      if (replay) return replay;
    }
    await this.precheck(state, input.templateId, input.variables ?? {});
    const userIds = [...new Set(input.userIds)];
    const draft: Draft = { ...input, id: randomUUID(), projectId, userIds, variables: input.variables ?? {}, idempotencyKey };
    if ((await this.admissions.load(draft)) === 'duplicate') {
      // The same key raced us: the first request wins and this one answers like it.
      const replay = await this.replay(projectId, idempotencyKey!);
      if (replay) return replay;
      throw AppError.conflict('A request with this Idempotency-Key is being processed; retry it');
    }
    return accepted({ id: draft.id, bulk: draft.bulk, recipients: userIds.length });
  }

  /**
   * Writes and queues a batch of drafts. `enqueuedAt` is set optimistically: if the enqueue fails,
   * the rows are removed and every send of the batch answers 503, so that nothing is delivered for
   * a request answered 503. (If even the removal fails, the worker's sweeper delivers them, and a
   * retry with the same Idempotency-Key gets that notification.)
   */
  private async admitBatch(drafts: readonly Draft[]): Promise<(Admission | Error)[]> {
    const outcomes = await this.insert(drafts);
    const admitted = drafts.filter((_, i) => outcomes[i] === 'admitted');
    if (admitted.length) {
      const jobs = admitted.map((d) => ({ name: deliverJob.name, data: { notificationId: d.id }, opts: { ...deliverJob.options, jobId: deliverJobId(d.id) } }));
      try {
        // A batch of one is the common case at a moderate rate: `add` sends one command, where
        // `addBulk` builds an ioredis pipeline, which copies each of BullMQ's scripts onto it.
        if (jobs.length === 1) await this.queue.add(jobs[0].name, jobs[0].data, jobs[0].opts);
        else await this.queue.addBulk(jobs);
      } catch {
        await this.db.notification.deleteMany({ where: { id: { in: admitted.map((d) => d.id) } } }).catch(() => undefined);
        throw AppError.unavailable();
      }
    }
    return outcomes;
  }

  /**
   * One INSERT for the batch. If Postgres refuses it for one row's sake (its project was deleted a
   * moment ago), each row is written alone so that only that send fails.
   */
  private async insert(drafts: readonly Draft[]): Promise<(Admission | Error)[]> {
    try {
      const inserted = new Set((await this.insertRows(drafts)).map((r) => r.id));
      return drafts.map((d) => (inserted.has(d.id) ? 'admitted' : 'duplicate'));
    } catch (err) {
      if (drafts.length === 1 || sqlState(err) === undefined) throw toAdmissionError(err);
    }
    return Promise.all(
      drafts.map((d) =>
        this.insertRows([d]).then(
          (rows): Admission => (rows.length ? 'admitted' : 'duplicate'),
          toAdmissionError,
        ),
      ),
    );
  }

  /**
   * Through node-postgres directly: this is the one statement every send runs, and Prisma's own work
   * per query cost as much CPU as the rest of the statement (see `sqlPool`).
   */
  private async insertRows(drafts: readonly Draft[]): Promise<{ id: string }[]> {
    const values: unknown[] = [];
    const rows = drafts.map((d) => {
      const at = values.length;
      values.push(d.id, d.projectId, d.templateId, d.userIds, JSON.stringify(d.variables), d.data ? JSON.stringify(d.data) : null, d.imageUrl ?? null, d.userIds.length, d.bulk, d.idempotencyKey ?? null);
      const $ = (i: number) => `$${at + i}`;
      return `(${$(1)}::uuid, ${$(2)}::uuid, ${$(3)}::uuid, ${$(4)}::text[], ${$(5)}::jsonb, ${$(6)}::jsonb, ${$(7)}, ${$(8)}::int, ${$(9)}::boolean, ${$(10)}, now(), now(), now())`;
    });
    const { rows: inserted } = await this.pool.query<{ id: string }>(
      `INSERT INTO "Notification" ("id", "projectId", "templateId", "userIds", "variables", "data", "imageUrl", "recipients", "bulk", "idempotencyKey", "enqueuedAt", "createdAt", "updatedAt")
       VALUES ${rows.join(', ')}
       ON CONFLICT ("projectId", "idempotencyKey") DO NOTHING
       RETURNING "id"`,
      values,
    );
    return inserted;
  }

  /** The first answer for this key within 24 h; an older key is released for reuse. */
  private async replay(projectId: string, idempotencyKey: string) {
    const previous = await this.db.notification.findUnique({ where: { projectId_idempotencyKey: { projectId, idempotencyKey } } });
    if (!previous) return undefined;
    if (Date.now() - previous.createdAt.getTime() < IDEMPOTENCY_WINDOW_MS) return accepted(previous);
    await this.db.notification.updateMany({ where: { id: previous.id, idempotencyKey }, data: { idempotencyKey: null } });
    return undefined;
  }

  /** The checks before queuing (docs/api.md#sending): each a clear 4xx, and nothing queued. Read from the project's snapshot. */
  private async precheck(state: ProjectSnapshot, templateId: string, variables: Record<string, unknown>) {
    const [template, { pushEnabled, hasEnabledProvider }] = await Promise.all([state.template(templateId), state.sendReadiness()]);
    if (!template) throw AppError.notFound(TEMPLATE_NOT_FOUND);
    const unavailable = pushUnavailableReason({ configEnabled: pushEnabled, hasProvider: hasEnabledProvider });
    if (unavailable) throw AppError.conflict(unavailable);
    // A trial render, within the budget the worker renders with: variables that cannot be rendered
    // are refused here rather than queued to fail (or block a worker) later.
    const missing = renderWithin(template, variables).template.missing(variables);
    if (missing.length) {
      throw AppError.badRequest(
        `Missing template variables: ${missing.join(', ')}`,
        missing.map((name) => ({ path: `variables.${name}`, message: 'Required by the template' })),
      );
    }
  }

  async get(projectId: string, id: string) {
    const n = await this.db.notification.findFirst({
      where: { id, projectId },
      include: {
        deliveries: {
          where: { status: { not: 'pending' } },
          orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
          select: { userId: true, deviceId: true, platform: true, status: true, providerConfigId: true, providerMessageId: true, error: true },
        },
      },
    });
    if (!n) throw AppError.notFound(NOTIFICATION_NOT_FOUND);
    return { ...toSummary(n), deliveries: n.deliveries };
  }

  async list(projectId: string, p: { page: number; limit: number }) {
    const [rows, total] = await Promise.all([
      this.db.notification.findMany({ where: { projectId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip: (p.page - 1) * p.limit, take: p.limit }),
      this.db.notification.count({ where: { projectId } }),
    ]);
    return page(rows.map(toSummary), total, p);
  }
}
