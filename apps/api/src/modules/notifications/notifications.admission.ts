import { randomUUID } from 'node:crypto';
import type { Queue } from 'bullmq';
import DataLoader from 'dataloader';
import { AppError, chunk, deliverJobFor, MAX_NOTIFICATIONS_PER_JOB, SCHEDULE_AHEAD_MS, sharedDeliverJobFor, sharedDeliverJobId, type PushOptions, type Timing } from '@herald/core';
import { isForeignKeyViolation, sqlPool, sqlState, type Db, type SqlPool } from '@herald/db';
import { PROJECT_NOT_FOUND } from '../../http/access';
import type { SendInput } from './notifications.schema';

/** A notification about to be written and queued. */
export interface Draft {
  id: string;
  projectId: string;
  templateId: string;
  userIds: string[];
  variables: Record<string, unknown>;
  /** Personalised bulk: the recipients' own variables by user id. */
  recipientVariables?: Record<string, Record<string, unknown>>;
  data?: Record<string, unknown>;
  imageUrl?: string;
  options?: PushOptions;
  dataOnly: boolean;
  dryRun: boolean;
  sendAt?: Date;
  bulk: boolean;
  idempotencyKey?: string;
  /** The deliver job it shares with sends admitted with it (none: its own job). */
  jobId?: string;
  /** Local time and quiet hours, fixed now (null: every delivery when planned). */
  timing: Timing | null;
  /** A broadcast: its audience as sent (a segment's filter copied in), and its pace. */
  audience?: Record<string, unknown>;
  ratePerMinute?: number;
  /** A broadcast's staged rollout as sent, with its progress from the first stage. */
  rollout?: Record<string, unknown>;
}

/** A scheduled send due beyond SCHEDULE_AHEAD_MS: written without a job, which the worker's sweeper queues nearer the time. */
const queuedLater = (d: Draft, now: number) => d.sendAt !== undefined && d.sendAt.getTime() - now > SCHEDULE_AHEAD_MS;

type Variables = Record<string, unknown>;

/**
 * The notification a checked send becomes. `used` keeps the variables the template can read: a
 * variable it never uses is not stored (it would be kept, unread, as long as the notification).
 */
export function draftOf(
  projectId: string,
  input: SendInput,
  sendAt: Date | undefined,
  idempotencyKey: string | undefined,
  used: (vars: Variables) => Variables = (v) => v,
  timing: Timing | null = null,
): Draft {
  const recipients = input.personalised ? input.recipients : [...new Map(input.recipients.map((r) => [r.userId, r])).values()];
  const recipientVariables = input.personalised
    ? Object.fromEntries(recipients.map((r) => [r.userId, used(r.variables ?? {})] as const).filter(([, v]) => Object.keys(v).length))
    : undefined;
  return {
    id: randomUUID(),
    projectId,
    templateId: input.templateId,
    userIds: recipients.map((r) => r.userId),
    variables: used(input.variables ?? {}),
    recipientVariables: recipientVariables && Object.keys(recipientVariables).length ? recipientVariables : undefined,
    data: input.data,
    imageUrl: input.imageUrl,
    options: Object.keys(input.options).length ? input.options : undefined,
    dataOnly: input.dataOnly ?? false,
    dryRun: input.dryRun ?? false,
    sendAt,
    bulk: input.bulk,
    idempotencyKey,
    timing,
  };
}

/** `duplicate`: another notification of the project holds the draft's Idempotency-Key. */
export type Admission = 'admitted' | 'duplicate';

const toAdmissionError = (err: unknown): Error => (isForeignKeyViolation(err) ? AppError.notFound(PROJECT_NOT_FOUND) : (err as Error));

/** Sends admitted in one write: at most this many rows in one INSERT and one queue round trip. */
const MAX_ADMISSION_BATCH = 200;

/**
 * INSERTs of up to this many rows (the usual batch at a moderate rate is one or two sends) are named
 * statements: each connection parses and plans them once rather than at every send, which saved a
 * quarter of Postgres' CPU per single-row INSERT. Larger batches spread that cost over their rows and
 * are not kept (each row count would be a statement of its own on every connection).
 */
const PREPARED_UP_TO_ROWS = 8;

/**
 * Writes and queues sends. The sends of concurrent requests are admitted together: one multi-row
 * INSERT and one queue round trip for all the sends that reach this point in the same event-loop turn.
 */
export class Admissions {
  private readonly batches = new DataLoader<Draft, Admission>((drafts) => this.admitBatch(drafts), {
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

  /** Writes and queues one send, with the others of its turn. */
  admit(draft: Draft): Promise<Admission> {
    return this.batches.load(draft);
  }

  /**
   * Writes and queues a batch of drafts; a send scheduled beyond SCHEDULE_AHEAD_MS is only written (its
   * `enqueuedAt` null: the worker's sweeper queues it). `enqueuedAt` is set optimistically: if the enqueue fails,
   * the rows are removed and every send of the batch answers 503, so that nothing is delivered for
   * a request answered 503. (If even the removal fails, the worker's sweeper delivers them, and a
   * retry with the same Idempotency-Key gets that notification.)
   */
  private async admitBatch(drafts: readonly Draft[]): Promise<(Admission | Error)[]> {
    // Sends due now that are admitted together share deliver jobs (their rows name the job): a worker
    // pays a job's fixed cost once for all of them. A scheduled send keeps a delayed job of its own.
    // A broadcast keeps its own job: its fan-out is long, and is taken over by its job id.
    const now = drafts.filter((d) => !d.sendAt && !d.audience);
    if (now.length > 1) {
      for (const group of chunk(now, MAX_NOTIFICATIONS_PER_JOB)) {
        const jobId = sharedDeliverJobId();
        for (const d of group) d.jobId = jobId;
      }
    }
    const at = Date.now();
    const outcomes = await this.insert(drafts, at);
    const admitted = drafts.filter((_, i) => outcomes[i] === 'admitted' && !queuedLater(drafts[i], at));
    if (admitted.length) {
      const shared = new Map<string, string[]>();
      for (const d of admitted) {
        if (!d.jobId) continue;
        const ids = shared.get(d.jobId);
        if (ids) ids.push(d.id);
        else shared.set(d.jobId, [d.id]);
      }
      const jobs = [
        // A send scheduled soon is a delayed job: BullMQ keeps it in Redis and hands it to a worker when due.
        ...admitted.filter((d) => !d.jobId).map((d) => deliverJobFor(d.id, d.sendAt ? d.sendAt.getTime() - Date.now() : 0)),
        ...[...shared].map(([jobId, notificationIds]) => sharedDeliverJobFor(jobId, notificationIds)),
      ];
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
  private async insert(drafts: readonly Draft[], now: number): Promise<(Admission | Error)[]> {
    try {
      const inserted = new Set((await this.insertRows(drafts, now)).map((r) => r.id));
      return drafts.map((d) => (inserted.has(d.id) ? 'admitted' : 'duplicate'));
    } catch (err) {
      if (drafts.length === 1 || sqlState(err) === undefined) throw toAdmissionError(err);
    }
    return Promise.all(
      drafts.map((d) =>
        this.insertRows([d], now).then(
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
  private async insertRows(drafts: readonly Draft[], now: number): Promise<{ id: string }[]> {
    const values: unknown[] = [];
    const json = (v: unknown) => (v === undefined ? null : JSON.stringify(v));
    const rows = drafts.map((d) => {
      const at = values.length;
      values.push(
        d.id,
        d.projectId,
        d.templateId,
        d.userIds,
        JSON.stringify(d.variables),
        json(d.data),
        d.imageUrl ?? null,
        d.userIds.length,
        d.bulk,
        d.idempotencyKey ?? null,
        json(d.options),
        d.dataOnly,
        d.dryRun,
        json(d.recipientVariables),
        d.sendAt ?? null,
        d.sendAt ? 'scheduled' : 'queued',
        d.jobId ?? null,
        json(d.timing ?? undefined),
        !queuedLater(d, now),
        json(d.audience),
        d.ratePerMinute ?? null,
        json(d.rollout),
        // A broadcast holds one pending delivery for its fan-out until every page is planned.
        d.audience ? 1 : 0,
      );
      const $ = (i: number) => `$${at + i}`;
      return `(${$(1)}::uuid, ${$(2)}::uuid, ${$(3)}::uuid, ${$(4)}::text[], ${$(5)}::jsonb, ${$(6)}::jsonb, ${$(7)}, ${$(8)}::int, ${$(9)}::boolean, ${$(10)}, ${$(11)}::jsonb, ${$(12)}::boolean, ${$(13)}::boolean, ${$(14)}::jsonb, ${$(15)}::timestamptz, ${$(16)}::"NotificationStatus", ${$(17)}, ${$(18)}::jsonb, CASE WHEN ${$(19)}::boolean THEN now() END, ${$(20)}::jsonb, ${$(21)}::int, ${$(22)}::jsonb, ${$(23)}::int, now(), now())`;
    });
    const { rows: inserted } = await this.pool.query<{ id: string }>({
      name: drafts.length <= PREPARED_UP_TO_ROWS ? `herald_admit_${drafts.length}` : undefined,
      text: `INSERT INTO "Notification" ("id", "projectId", "templateId", "userIds", "variables", "data", "imageUrl", "recipients", "bulk", "idempotencyKey",
         "options", "dataOnly", "dryRun", "recipientVariables", "sendAt", "status", "jobId", "timing", "enqueuedAt", "audience", "ratePerMinute", "rollout", "pendingDeliveries", "createdAt", "updatedAt")
       VALUES ${rows.join(', ')}
       ON CONFLICT ("projectId", "idempotencyKey") DO NOTHING
       RETURNING "id"`,
      values,
    });
    return inserted;
  }
}
