import { randomUUID } from 'node:crypto';
import type { JobsOptions, Queue } from 'bullmq';
import DataLoader from 'dataloader';
import { AppError, chunk, deliverJob, deliverJobId, MAX_NOTIFICATIONS_PER_JOB, mergePushOptions, sharedDeliverJobId, pushUnavailableReason, readPushOptions, stringifyData, type DeliverJobData, type ErrorDetail, type PushOptions, type RenderedTemplate } from '@herald/core';
import { isForeignKeyViolation, notificationEvent, sqlPool, sqlState, type Db, type Notification, type SqlPool, type WebhookEvents } from '@herald/db';
import { fcmPayloadBytes, FCM_MAX_PAYLOAD_BYTES, toFcmMessage } from '@herald/providers';
import { PROJECT_NOT_FOUND } from '../../http/access';
import { page } from '../../http/pagination';
import type { CachedTemplate } from '../../project-cache/loaders';
import type { ProjectSnapshot } from '../../project-cache/project-cache';
import { renderWithin } from '../templates/templates.service';
import { MAX_SCHEDULE_DAYS } from './notifications.schema';

export const IDEMPOTENCY_WINDOW_MS = 24 * 3600 * 1000;

export const TEMPLATE_NOT_FOUND = 'Template not found';
export const NOTIFICATION_NOT_FOUND = 'Notification not found';

export const NOT_SCHEDULED = 'Only a scheduled notification can be canceled';

/** One user of a send; with personalised bulk, with their own variables. */
export interface Recipient {
  userId: string;
  variables?: Record<string, unknown>;
}

export interface SendInput {
  recipients: Recipient[];
  templateId: string;
  /** Shared by every recipient; a recipient's own variables are merged over them. */
  variables?: Record<string, unknown>;
  imageUrl?: string;
  data?: Record<string, unknown>;
  /** The send's own options; the template's defaults are merged under them when delivering. */
  options: PushOptions;
  dataOnly?: boolean;
  dryRun?: boolean;
  /** ISO 8601 with offset: deliver then. */
  sendAt?: string;
  bulk: boolean;
  /** Sent with `recipients` (personalised bulk): missing variables are reported per recipient. */
  personalised: boolean;
}

/** A notification about to be written and queued. */
interface Draft {
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
}

/** `duplicate`: another notification of the project holds the draft's Idempotency-Key. */
type Admission = 'admitted' | 'duplicate';

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

/** The answer to a send, the same when it is replayed for its Idempotency-Key. */
const accepted = (n: Pick<Notification, 'id' | 'bulk' | 'recipients' | 'sendAt'>) => ({
  notificationId: n.id,
  ...(n.sendAt ? { status: 'scheduled' as const, sendAt: n.sendAt.toISOString() } : { status: 'queued' as const }),
  ...(n.bulk ? { recipients: n.recipients } : {}),
});

const MAX_SCHEDULE_MS = MAX_SCHEDULE_DAYS * 24 * 3600 * 1000;

/** A send's `sendAt`: in the future, at most 30 days ahead. */
function scheduleTime(sendAt: string | undefined, now = Date.now()): Date | undefined {
  if (sendAt === undefined) return undefined;
  const at = new Date(sendAt);
  if (at.getTime() <= now) throw AppError.badRequest('sendAt must be in the future', [{ path: 'sendAt', message: 'must be in the future' }]);
  if (at.getTime() > now + MAX_SCHEDULE_MS) {
    throw AppError.badRequest(`sendAt must be at most ${MAX_SCHEDULE_DAYS} days ahead`, [{ path: 'sendAt', message: `must be at most ${MAX_SCHEDULE_DAYS} days ahead` }]);
  }
  return at;
}

/** A personalised recipient's render within the budget; its 400 names the recipient. */
function renderFor(template: CachedTemplate, variables: Record<string, unknown>, at: number): RenderedTemplate {
  try {
    return renderWithin(template, variables).rendered;
  } catch (err) {
    if (!(err instanceof AppError) || err.status !== 400) throw err;
    throw AppError.badRequest(`recipients.${at}: ${err.message}`, [{ path: `recipients.${at}.variables`, message: err.message }]);
  }
}

/** Up to this many recipients are named in the message of a 400 (`details` lists every one). */
const NAMED_IN_MESSAGE = 10;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

const toSummary = (n: Notification) => ({
  id: n.id,
  status: n.status,
  templateId: n.templateId,
  createdAt: n.createdAt.toISOString(),
  completedAt: iso(n.completedAt),
  stats: { recipients: n.recipients, devices: n.devices, sent: n.sent, failed: n.failed, invalidTokensRemoved: n.invalidTokensRemoved },
  // Beyond the spec's fields: present only for the sends that use them.
  ...(n.sendAt ? { sendAt: n.sendAt.toISOString() } : {}),
  ...(n.dryRun ? { dryRun: true as const } : {}),
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
    /** Emits `notification.canceled` when a cancel ends a notification. */
    private readonly webhookEvents?: WebhookEvents,
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
    const sendAt = scheduleTime(input.sendAt);
    await this.precheck(state, input);
    const recipients = input.personalised ? input.recipients : [...new Map(input.recipients.map((r) => [r.userId, r])).values()];
    const recipientVariables = input.personalised
      ? Object.fromEntries(recipients.filter((r) => r.variables && Object.keys(r.variables).length).map((r) => [r.userId, r.variables!]))
      : undefined;
    const draft: Draft = {
      id: randomUUID(),
      projectId,
      templateId: input.templateId,
      userIds: recipients.map((r) => r.userId),
      variables: input.variables ?? {},
      recipientVariables: recipientVariables && Object.keys(recipientVariables).length ? recipientVariables : undefined,
      data: input.data,
      imageUrl: input.imageUrl,
      options: Object.keys(input.options).length ? input.options : undefined,
      dataOnly: input.dataOnly ?? false,
      dryRun: input.dryRun ?? false,
      sendAt,
      bulk: input.bulk,
      idempotencyKey,
    };
    if ((await this.admissions.load(draft)) === 'duplicate') {
      // The same key raced us: the first request wins and this one answers like it.
      const replay = await this.replay(projectId, idempotencyKey!);
      if (replay) return replay;
      throw AppError.conflict('A request with this Idempotency-Key is being processed; retry it');
    }
    return accepted({ id: draft.id, bulk: draft.bulk, recipients: draft.userIds.length, sendAt: sendAt ?? null });
  }

  /**
   * Writes and queues a batch of drafts. `enqueuedAt` is set optimistically: if the enqueue fails,
   * the rows are removed and every send of the batch answers 503, so that nothing is delivered for
   * a request answered 503. (If even the removal fails, the worker's sweeper delivers them, and a
   * retry with the same Idempotency-Key gets that notification.)
   */
  private async admitBatch(drafts: readonly Draft[]): Promise<(Admission | Error)[]> {
    // Sends due now that are admitted together share deliver jobs (their rows name the job): a worker
    // pays a job's fixed cost once for all of them. A scheduled send keeps a delayed job of its own.
    const now = drafts.filter((d) => !d.sendAt);
    if (now.length > 1) {
      for (const group of chunk(now, MAX_NOTIFICATIONS_PER_JOB)) {
        const jobId = sharedDeliverJobId();
        for (const d of group) d.jobId = jobId;
      }
    }
    const outcomes = await this.insert(drafts);
    const admitted = drafts.filter((_, i) => outcomes[i] === 'admitted');
    if (admitted.length) {
      const shared = new Map<string, string[]>();
      for (const d of admitted) {
        if (!d.jobId) continue;
        const ids = shared.get(d.jobId);
        if (ids) ids.push(d.id);
        else shared.set(d.jobId, [d.id]);
      }
      const jobs: { name: string; data: DeliverJobData; opts: JobsOptions }[] = [
        // A scheduled send is a delayed job: BullMQ keeps it in Redis and hands it to a worker when due.
        ...admitted
          .filter((d) => !d.jobId)
          .map((d) => ({
            name: deliverJob.name,
            data: { notificationId: d.id },
            opts: { ...deliverJob.options, jobId: deliverJobId(d.id), ...(d.sendAt ? { delay: Math.max(0, d.sendAt.getTime() - Date.now()) } : {}) },
          })),
        ...[...shared].map(([jobId, notificationIds]) => ({ name: deliverJob.name, data: { notificationIds }, opts: { ...deliverJob.options, jobId } })),
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
      );
      const $ = (i: number) => `$${at + i}`;
      return `(${$(1)}::uuid, ${$(2)}::uuid, ${$(3)}::uuid, ${$(4)}::text[], ${$(5)}::jsonb, ${$(6)}::jsonb, ${$(7)}, ${$(8)}::int, ${$(9)}::boolean, ${$(10)}, ${$(11)}::jsonb, ${$(12)}::boolean, ${$(13)}::boolean, ${$(14)}::jsonb, ${$(15)}::timestamptz, ${$(16)}::"NotificationStatus", ${$(17)}, now(), now(), now())`;
    });
    const { rows: inserted } = await this.pool.query<{ id: string }>({
      name: drafts.length <= PREPARED_UP_TO_ROWS ? `herald_admit_${drafts.length}` : undefined,
      text: `INSERT INTO "Notification" ("id", "projectId", "templateId", "userIds", "variables", "data", "imageUrl", "recipients", "bulk", "idempotencyKey",
         "options", "dataOnly", "dryRun", "recipientVariables", "sendAt", "status", "jobId", "enqueuedAt", "createdAt", "updatedAt")
       VALUES ${rows.join(', ')}
       ON CONFLICT ("projectId", "idempotencyKey") DO NOTHING
       RETURNING "id"`,
      values,
    });
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
  private async precheck(state: ProjectSnapshot, input: SendInput) {
    const [template, { pushEnabled, hasEnabledProvider }] = await Promise.all([state.template(input.templateId), state.sendReadiness()]);
    if (!template) throw AppError.notFound(TEMPLATE_NOT_FOUND);
    const unavailable = pushUnavailableReason({ configEnabled: pushEnabled, hasProvider: hasEnabledProvider });
    if (unavailable) throw AppError.conflict(unavailable);
    // A trial render, within the budget the worker renders with: variables that cannot be rendered
    // are refused here rather than queued to fail (or block a worker) later.
    const shared = input.variables ?? {};
    const { template: compiled, rendered } = renderWithin(template, shared);
    if (!input.personalised) {
      const missing = compiled.missing(shared);
      if (missing.length) {
        throw AppError.badRequest(
          `Missing template variables: ${missing.join(', ')}`,
          missing.map((name) => ({ path: `variables.${name}`, message: 'Required by the template' })),
        );
      }
      this.checkSize(template, input, [{ rendered }]);
      return;
    }
    const merged = input.recipients.map((r) => ({ ...shared, ...r.variables }));
    const missing = merged.map((vars, i) => ({ i, names: compiled.missing(vars) })).filter((m) => m.names.length);
    if (missing.length) {
      const named = missing.slice(0, NAMED_IN_MESSAGE).map((m) => `recipients.${m.i} (${m.names.join(', ')})`);
      const more = missing.length > NAMED_IN_MESSAGE ? `, and ${missing.length - NAMED_IN_MESSAGE} more` : '';
      throw AppError.badRequest(
        `Missing template variables for ${missing.length} recipient${missing.length === 1 ? '' : 's'}: ${named.join(', ')}${more}`,
        missing.flatMap((m) => m.names.map((name) => ({ path: `recipients.${m.i}.variables.${name}`, message: 'Required by the template' }))),
      );
    }
    // One render per distinct variable set (the template is compiled once: compileTemplate caches it).
    const renders = new Map<string, { rendered: RenderedTemplate; at: number }>();
    merged.forEach((vars, at) => {
      const key = JSON.stringify(vars);
      if (!renders.has(key)) renders.set(key, { rendered: renderFor(template, vars, at), at });
    });
    this.checkSize(template, input, [...renders.values()]);
  }

  /**
   * FCM refuses a message over 4 KB: better a 400 now, with the size, than a failure per device. The
   * message is built as the worker will build it (every platform block at once, the largest case).
   */
  private checkSize(template: CachedTemplate, input: SendInput, renders: { rendered: RenderedTemplate; at?: number }[]) {
    const options = mergePushOptions(readPushOptions(template.options), input.options);
    const data = stringifyData(template.data as Record<string, unknown> | null, input.data);
    const problems: ErrorDetail[] = [];
    for (const { rendered, at } of renders) {
      const bytes = fcmPayloadBytes(toFcmMessage({ token: '', title: rendered.title, body: rendered.body, imageUrl: input.imageUrl, data, options, dataOnly: input.dataOnly }));
      if (bytes > FCM_MAX_PAYLOAD_BYTES) problems.push({ path: at === undefined ? 'message' : `recipients.${at}`, message: `${bytes} bytes` });
    }
    if (problems.length) {
      const [first] = problems;
      const whose = first.path === 'message' ? 'The message' : `The message for ${first.path}`;
      throw AppError.badRequest(
        `${whose} is ${first.message}; FCM allows at most ${FCM_MAX_PAYLOAD_BYTES} bytes of notification, data and platform payload`,
        problems,
      );
    }
  }

  /**
   * Cancels a scheduled notification: it never starts. One transition, in one place: a notification
   * that a worker has already started (or that was never scheduled) is a 409.
   */
  async cancel(projectId: string, id: string) {
    const { count } = await this.db.notification.updateMany({ where: { id, projectId, status: 'scheduled' }, data: { status: 'canceled', completedAt: new Date() } });
    const n = await this.db.notification.findFirst({ where: { id, projectId } });
    if (!n) throw AppError.notFound(NOTIFICATION_NOT_FOUND);
    if (!count) throw AppError.conflict(`${NOT_SCHEDULED} (this one is ${n.status})`);
    // The delayed job would find the notification canceled and do nothing; removing it spares that.
    await this.queue
      .getJob(deliverJobId(id))
      .then((job) => job?.remove())
      .catch(() => undefined);
    // Best effort here: if it fails, the worker's webhook sweeper emits the event for the final status.
    await this.webhookEvents?.emit(projectId, [notificationEvent(n)]).catch(() => undefined);
    return toSummary(n);
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
