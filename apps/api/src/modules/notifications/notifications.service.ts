import type { Queue } from 'bullmq';
import { AppError, deliverJobId, heldDeliverJobId, isFinalStatus, readPushOptions, rolloutViewOf, timingOf, type Timing } from '@herald/core';
import { notificationEvent, writeAudit, type AuditSource, type Db, type Notification, type WebhookEvents } from '@herald/db';
import { page } from '../../http/pagination';
import { funnelOf, NO_ENGAGEMENT } from '../engagement/engagement.funnel';
import type { ProjectSnapshot } from '../../project-cache/project-cache';
import { Admissions, draftOf, type Draft } from './notifications.admission';
import { precheck, scheduleTime } from './notifications.checks';
import { DEFAULT_BROADCAST_DELIVERIES, type SendInput } from './notifications.schema';
import { NOTIFICATION_READ_SQL } from './notifications.sql';

/** A delivery as a notification's read finds it: settled, or held for its moment. */
type DeliveryView = {
  userId: string;
  deviceId: string | null;
  platform: string | null;
  status: string;
  providerConfigId: string | null;
  providerMessageId: string | null;
  error: string | null;
  notBefore: Date | null;
  possiblyDelivered: boolean;
};

export type { Recipient, SendInput } from './notifications.schema';

export const IDEMPOTENCY_WINDOW_MS = 24 * 3600 * 1000;

export const NOTIFICATION_NOT_FOUND = 'Notification not found';

export const NOT_SCHEDULED = 'Only a scheduled notification can be canceled';
export const tooManyScheduled = (max: number) => `The project has ${max} scheduled notifications, the most it may hold: cancel some, or wait until they are sent`;

export const NOT_HALTED = 'Only a halted rollout can be resumed';
export const BROADCAST_ENDED = 'A broadcast can be canceled only until it ends';

/** The answer to a send, the same when it is replayed for its Idempotency-Key. */
const accepted = (n: Pick<Notification, 'id' | 'bulk' | 'recipients' | 'sendAt'>) => ({
  notificationId: n.id,
  ...(n.sendAt ? { status: 'scheduled' as const, sendAt: n.sendAt.toISOString() } : { status: 'queued' as const }),
  ...(n.bulk ? { recipients: n.recipients } : {}),
});

const iso = (d: Date | null) => (d ? d.toISOString() : null);

type SummaryFields = 'id' | 'status' | 'templateId' | 'createdAt' | 'completedAt' | 'recipients' | 'devices' | 'sent' | 'failed' | 'invalidTokensRemoved' | 'sendAt' | 'dryRun' | 'timing' | 'defaultZoneDevices' | 'audience' | 'error' | 'pendingDeliveries' | 'fannedOut' | 'rollout';

const timingOfRow = (n: Pick<Notification, 'timing'>) => n.timing as Timing | null;

const toSummary = (n: Pick<Notification, SummaryFields>, held = 0) => {
  const localTime = timingOfRow(n)?.localTime;
  return {
    id: n.id,
    status: n.status,
    templateId: n.templateId,
    createdAt: n.createdAt.toISOString(),
    completedAt: iso(n.completedAt),
    stats: {
      recipients: n.recipients,
      devices: n.devices,
      sent: n.sent,
      failed: n.failed,
      invalidTokensRemoved: n.invalidTokensRemoved,
      // Only for the sends timed by local time or quiet hours.
      ...(n.timing ? { held, defaultZoneDevices: n.defaultZoneDevices } : {}),
    },
    // Beyond the spec's fields: present only for the sends that use them.
    ...(n.sendAt ? { sendAt: n.sendAt.toISOString() } : {}),
    ...(n.dryRun ? { dryRun: true as const } : {}),
    ...(localTime ? { deliverAt: { localTime } } : {}),
    ...(n.audience !== null ? { audience: n.audience as Record<string, unknown>, progress: progressOf(n) } : {}),
    ...(n.error ? { error: n.error } : {}),
    ...(n.rollout !== null && n.rollout !== undefined ? { rollout: rolloutViewOf(n.rollout) } : {}),
  };
};

/** A delivery as the API shows it: a pending one is `held` until its moment (`canceled` if its notification was). */
const toDelivery = (status: Notification['status'], { notBefore, ...d }: { status: string; notBefore: Date | null } & Record<string, unknown>) => ({
  ...d,
  status: d.status === 'pending' ? (status === 'canceled' ? 'canceled' : 'held') : d.status,
  // Only for deliveries timed by local time or quiet hours.
  ...(notBefore ? { notBefore: notBefore.toISOString() } : {}),
});

/** A broadcast's fan-out so far; until every page is planned, one pending delivery stands for the fan-out itself. */
const progressOf = (n: Pick<Notification, 'devices' | 'sent' | 'failed' | 'pendingDeliveries' | 'fannedOut' | 'status'>) => ({
  planned: n.devices,
  sent: n.sent,
  failed: n.failed,
  pending: Math.max(0, n.pendingDeliveries - (n.fannedOut || isFinalStatus(n.status) ? 0 : 1)),
  fannedOut: n.fannedOut,
});

const DELIVERY_FIELDS = { userId: true, deviceId: true, platform: true, status: true, providerConfigId: true, providerMessageId: true, error: true, possiblyDelivered: true } as const;

/**
 * The template's analytics label written into a send that names none: the label FCM gets and the one
 * the daily series count under stay the send's, whatever the template says by the time it is delivered.
 */
async function withTemplateLabel(state: ProjectSnapshot, input: SendInput): Promise<SendInput> {
  if (input.options.analyticsLabel) return input;
  const label = readPushOptions((await state.template(input.templateId))?.options).analyticsLabel;
  return label ? { ...input, options: { ...input.options, analyticsLabel: label } } : input;
}

/**
 * Accepts sends: validates everything that can be known before delivery, writes the notification
 * and enqueues its job. The API never renders for delivery and never calls a provider.
 *
 * The checks (notifications.checks.ts) read the project's snapshot: no database round trip while
 * nothing changed. Admission (notifications.admission.ts) writes the sends of concurrent requests
 * together: one multi-row INSERT and one queue round trip for all the sends of one event-loop turn.
 */
export class NotificationService {
  private readonly admissions: Admissions;

  constructor(
    private readonly db: Db,
    private readonly queue: Queue,
    /** Emits `notification.canceled` when a cancel ends a notification. */
    private readonly webhookEvents?: WebhookEvents,
    /** Scheduled notifications a project may hold (SCHEDULED_PER_PROJECT). */
    private readonly maxScheduled = Infinity,
  ) {
    this.admissions = new Admissions(db, queue);
  }

  /** Checks a send against the project's state, then admits it. `broadcast`: its audience and pace. */
  async send(state: ProjectSnapshot, input: SendInput, idempotencyKey?: string, broadcast?: Pick<Draft, 'audience' | 'ratePerMinute' | 'rollout'>) {
    const { projectId } = state;
    if (idempotencyKey) {
      const replay = await this.replay(projectId, idempotencyKey);
      if (replay) return replay;
    }
    const sendAt = scheduleTime(input.sendAt);
    if (sendAt && input.deliverAt) throw AppError.badRequest('Give either sendAt or deliverAt, not both', [{ path: 'deliverAt', message: 'not with sendAt' }]);
    const template = await precheck(state, input);
    if (sendAt) await this.checkScheduledRoom(projectId);
    const labelled = await withTemplateLabel(state, input);
    const timing = await this.timing(state, labelled);
    const draft = { ...draftOf(projectId, labelled, sendAt, idempotencyKey, (vars) => template.used(vars), timing), ...broadcast };
    if ((await this.admissions.admit(draft)) === 'duplicate') {
      // The same key raced us: the first request wins and this one answers like it.
      const replay = await this.replay(projectId, idempotencyKey!);
      if (replay) return replay;
      throw AppError.conflict('A request with this Idempotency-Key is being processed; retry it');
    }
    return accepted({ id: draft.id, bulk: draft.bulk, recipients: draft.userIds.length, sendAt: sendAt ?? null });
  }

  /**
   * A project's scheduled notifications wait in Postgres (and, near their time, in Redis) for up to
   * 30 days: they are bounded. Counted through a partial index of scheduled rows; sends admitted at
   * the same moment may pass the bound by the few in flight.
   */
  private async checkScheduledRoom(projectId: string) {
    if (!Number.isFinite(this.maxScheduled)) return;
    const scheduled = await this.db.notification.count({ where: { projectId, status: 'scheduled' } });
    if (scheduled >= this.maxScheduled) throw AppError.conflict(tooManyScheduled(this.maxScheduled));
  }

  /**
   * The send's timing under the project's settings now: its local time, and quiet hours unless it
   * is exempt (`priority: "high"`, its own or its template's, or `ignoreQuietHours`).
   */
  private async timing(state: ProjectSnapshot, input: SendInput): Promise<Timing | null> {
    const [settings, template] = await Promise.all([state.settings(), state.template(input.templateId)]);
    const priority = input.options.priority ?? readPushOptions(template?.options).priority;
    return timingOf({ localTime: input.deliverAt?.localTime, exempt: priority === 'high' || input.ignoreQuietHours === true }, settings);
  }

  /** The timing a notification was accepted with (null: untimed, or no such notification of the project). */
  async timingOf(projectId: string, id: string): Promise<Timing | null> {
    const n = await this.db.notification.findFirst({ where: { id, projectId }, select: { timing: true } });
    return n ? timingOfRow(n) : null;
  }

  /** The first answer for this key within 24 h; an older key is released for reuse. */
  private async replay(projectId: string, idempotencyKey: string) {
    const previous = await this.db.notification.findUnique({ where: { projectId_idempotencyKey: { projectId, idempotencyKey } } });
    if (!previous) return undefined;
    if (Date.now() - previous.createdAt.getTime() < IDEMPOTENCY_WINDOW_MS) return accepted(previous);
    await this.db.notification.updateMany({ where: { id: previous.id, idempotencyKey }, data: { idempotencyKey: null } });
    return undefined;
  }

  /**
   * Cancels a scheduled notification: it never starts. A local-time or quiet-hours notification can
   * also be canceled while any of its deliveries is held: those are never sent. One transition, in one place: a notification
   * that a worker has already started (or that was never scheduled) is a 409.
   */
  async cancel(projectId: string, id: string, source: AuditSource) {
    const count = await this.db.$transaction(async (tx) => {
      const [before] = await tx.$queryRaw<{ status: string }[]>`
        SELECT "status"::text AS "status" FROM "Notification" WHERE "id" = ${id}::uuid AND "projectId" = ${projectId}::uuid FOR UPDATE`;
      // A broadcast is canceled until it ends: its pages not yet sent are not sent (docs/audiences.md). A
      // local-time (or quiet-hours) notification being delivered can be canceled while a delivery is
      // still held: what was sent stays sent, the held ones are never sent.
      const canceled = await tx.$executeRaw`
        UPDATE "Notification" n SET "status" = 'canceled', "completedAt" = now(), "updatedAt" = now()
        WHERE n."id" = ${id}::uuid AND n."projectId" = ${projectId}::uuid
          AND (n."status" = 'scheduled' OR (n."status" IN ('queued', 'processing', 'halted') AND (n."audience" IS NOT NULL OR (n."timing" IS NOT NULL AND EXISTS (
            SELECT 1 FROM "Delivery" d WHERE d."notificationId" = n."id" AND d."status" = 'pending' AND d."notBefore" > now())))))`;
      if (canceled) {
        await writeAudit(tx, source, { projectId, action: 'notification.canceled', target: { type: 'notification', id }, changes: { status: { before: before?.status, after: 'canceled' } } });
      }
      return canceled;
    });
    const n = await this.db.notification.findFirst({ where: { id, projectId } });
    if (!n) throw AppError.notFound(NOTIFICATION_NOT_FOUND);
    if (!count) throw AppError.conflict(n.audience !== null ? `${BROADCAST_ENDED} (this one is ${n.status})` : `${NOT_SCHEDULED} (this one is ${n.status})`);
    // The delayed jobs would find the notification canceled and do nothing; removing them spares that.
    const held = await this.db.$queryRaw<{ due: bigint }[]>`
      SELECT DISTINCT (extract(epoch FROM "nextAttemptAt") * 1000)::bigint AS "due" FROM "Delivery"
      WHERE "notificationId" = ${id}::uuid AND "status" = 'pending' AND "notBefore" IS NOT NULL AND "nextAttemptAt" IS NOT NULL`;
    await Promise.all(
      [deliverJobId(id), ...held.map((h) => heldDeliverJobId(id, Number(h.due)))].map((jobId) =>
        this.queue
          .getJob(jobId)
          .then((job) => job?.remove())
          .catch(() => undefined),
      ),
    );
    // Best effort here: if it fails, the worker's webhook sweeper emits the event for the final status.
    await this.webhookEvents?.emit(projectId, [notificationEvent(n)]).catch(() => undefined);
    return toSummary(n);
  }

  /**
   * Goes on with a halted staged rollout: its next stage starts (the worker's rollout monitor queues
   * its deliveries within a second). Only a halted notification can be resumed: anything else is a 409.
   */
  async resume(projectId: string, id: string, source: AuditSource) {
    const resumed = await this.db.$transaction(async (tx) => {
      const [n] = await tx.$queryRaw<{ status: string; rollout: Record<string, unknown> | null }[]>`
        SELECT "status"::text AS "status", "rollout" FROM "Notification" WHERE "id" = ${id}::uuid AND "projectId" = ${projectId}::uuid FOR UPDATE`;
      if (!n) throw AppError.notFound(NOTIFICATION_NOT_FOUND);
      if (n.status !== 'halted' || !n.rollout) throw AppError.conflict(`${NOT_HALTED} (this one is ${n.status})`);
      const stage = Number(n.rollout.currentStage ?? 0) + 1;
      const next = { ...n.rollout, currentStage: stage, stageEndedAt: null, haltedAt: null, haltReason: null };
      await tx.$executeRaw`
        UPDATE "Notification" SET "status" = 'processing', "rollout" = ${JSON.stringify(next)}::jsonb, "updatedAt" = now() WHERE "id" = ${id}::uuid AND "status" = 'halted'`;
      await writeAudit(tx, source, {
        projectId,
        action: 'notification.resumed',
        target: { type: 'notification', id },
        changes: { status: { before: 'halted', after: 'processing' }, currentStage: { before: stage - 1, after: stage } },
      });
      return tx.notification.findFirstOrThrow({ where: { id, projectId } });
    });
    return toSummary(resumed);
  }

  /**
   * A notification with its deliveries. A broadcast's (or any, when asked) come a page at a time in
   * device id order, read on the (notification, device) index: as fast at a million deliveries as at ten.
   */
  async get(projectId: string, id: string, q: { deliveriesLimit?: number; deliveriesAfter?: string } = {}) {
    const [n] = await this.db.$queryRawUnsafe<Pick<Notification, SummaryFields>[]>(NOTIFICATION_READ_SQL.notification, id, projectId);
    if (!n) throw AppError.notFound(NOTIFICATION_NOT_FOUND);
    const engagement = await this.db.notificationEngagement.findUnique({ where: { notificationId: id }, select: { received: true, opened: true, clicked: true, dismissed: true } });
    const extras = {
      ...(n.timing ? { schedule: await this.schedule(id) } : {}),
      engagement: funnelOf(engagement ?? NO_ENGAGEMENT, n.dryRun ? 0 : n.sent),
    };
    const limit = q.deliveriesLimit ?? (n.audience !== null || q.deliveriesAfter ? DEFAULT_BROADCAST_DELIVERIES : undefined);
    if (limit === undefined) {
      const rows = await this.db.$queryRawUnsafe<DeliveryView[]>(NOTIFICATION_READ_SQL.deliveries, id);
      const now = Date.now();
      // A pending row whose moment has come is being sent: it shows once it has its outcome.
      const deliveries = rows.filter((d) => d.status !== 'pending' || n.status === 'canceled' || d.notBefore!.getTime() > now).map((d) => toDelivery(n.status, d));
      const held = n.status === 'canceled' ? 0 : deliveries.filter((d) => d.status === 'held').length;
      return { ...toSummary(n, held), ...extras, deliveries };
    }
    const rows = await this.db.delivery.findMany({
      where: { notificationId: id, status: { not: 'pending' }, deviceId: q.deliveriesAfter ? { gt: q.deliveriesAfter } : { not: null } },
      orderBy: { deviceId: 'asc' },
      take: limit + 1,
      select: DELIVERY_FIELDS,
    });
    const deliveries = rows.slice(0, limit);
    // A timed broadcast's held rows are counted, not listed (its pages list settled deliveries).
    const held = n.timing && !isFinalStatus(n.status) ? (await this.heldCounts([id])).get(id) : 0;
    return { ...toSummary(n, held), ...extras, deliveries, nextDeliveriesAfter: rows.length > limit ? deliveries[limit - 1].deviceId : null };
  }

  /** How many of a timed notification's devices are (or were) due in each hour. */
  private async schedule(notificationId: string) {
    const rows = await this.db.$queryRaw<{ hour: Date; devices: number }[]>`
      SELECT date_trunc('hour', "notBefore") AS "hour", count(*)::int AS "devices" FROM "Delivery"
      WHERE "notificationId" = ${notificationId}::uuid AND "notBefore" IS NOT NULL GROUP BY 1 ORDER BY 1`;
    return rows.map((r) => ({ hour: r.hour.toISOString(), devices: r.devices }));
  }

  async list(projectId: string, p: { page: number; limit: number }) {
    const [rows, total] = await Promise.all([
      this.db.notification.findMany({ where: { projectId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip: (p.page - 1) * p.limit, take: p.limit }),
      this.db.notification.count({ where: { projectId } }),
    ]);
    const held = await this.heldCounts(rows.filter((n) => n.timing && !isFinalStatus(n.status)).map((n) => n.id));
    return page(rows.map((n) => toSummary(n, held.get(n.id))), total, p);
  }

  /** Deliveries still held for their moment, by notification (only timed notifications have any). */
  private async heldCounts(ids: string[]): Promise<Map<string, number>> {
    if (!ids.length) return new Map();
    const rows = await this.db.$queryRaw<{ id: string; held: number }[]>`
      SELECT "notificationId" AS "id", count(*)::int AS "held" FROM "Delivery"
      WHERE "notificationId" = ANY(${ids}::uuid[]) AND "status" = 'pending' AND "notBefore" > now() GROUP BY 1`;
    return new Map(rows.map((r) => [r.id, r.held]));
  }
}
