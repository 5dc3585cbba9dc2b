import type { Queue } from 'bullmq';
import { AppError, deliverJobId, isFinalStatus } from '@herald/core';
import { notificationEvent, Prisma, type Db, type Notification, type WebhookEvents } from '@herald/db';
import { page } from '../../http/pagination';
import type { ProjectSnapshot } from '../../project-cache/project-cache';
import { Admissions, draftOf, type Draft } from './notifications.admission';
import { precheck, scheduleTime } from './notifications.checks';
import { DEFAULT_BROADCAST_DELIVERIES, type SendInput } from './notifications.schema';

export type { Recipient, SendInput } from './notifications.schema';

export const IDEMPOTENCY_WINDOW_MS = 24 * 3600 * 1000;

export const NOTIFICATION_NOT_FOUND = 'Notification not found';

export const NOT_SCHEDULED = 'Only a scheduled notification can be canceled';

export const BROADCAST_ENDED = 'A broadcast can be canceled only until it ends';

/** The answer to a send, the same when it is replayed for its Idempotency-Key. */
const accepted = (n: Pick<Notification, 'id' | 'bulk' | 'recipients' | 'sendAt'>) => ({
  notificationId: n.id,
  ...(n.sendAt ? { status: 'scheduled' as const, sendAt: n.sendAt.toISOString() } : { status: 'queued' as const }),
  ...(n.bulk ? { recipients: n.recipients } : {}),
});

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
  ...(n.audience !== null ? { audience: n.audience as Record<string, unknown>, progress: progressOf(n) } : {}),
  ...(n.error ? { error: n.error } : {}),
});

/** A broadcast's fan-out so far; until every page is planned, one pending delivery stands for the fan-out itself. */
const progressOf = (n: Notification) => ({
  planned: n.devices,
  sent: n.sent,
  failed: n.failed,
  pending: Math.max(0, n.pendingDeliveries - (n.fannedOut || isFinalStatus(n.status) ? 0 : 1)),
  fannedOut: n.fannedOut,
});

const DELIVERY_FIELDS = { userId: true, deviceId: true, platform: true, status: true, providerConfigId: true, providerMessageId: true, error: true } as const;

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
  ) {
    this.admissions = new Admissions(db, queue);
  }

  /** Checks a send against the project's state, then admits it. `broadcast`: its audience and pace. */
  async send(state: ProjectSnapshot, input: SendInput, idempotencyKey?: string, broadcast?: Pick<Draft, 'audience' | 'ratePerMinute'>) {
    const { projectId } = state;
    if (idempotencyKey) {
      const replay = await this.replay(projectId, idempotencyKey);
      if (replay) return replay;
    }
    const sendAt = scheduleTime(input.sendAt);
    await precheck(state, input);
    const draft = { ...draftOf(projectId, input, sendAt, idempotencyKey), ...broadcast };
    if ((await this.admissions.admit(draft)) === 'duplicate') {
      // The same key raced us: the first request wins and this one answers like it.
      const replay = await this.replay(projectId, idempotencyKey!);
      if (replay) return replay;
      throw AppError.conflict('A request with this Idempotency-Key is being processed; retry it');
    }
    return accepted({ id: draft.id, bulk: draft.bulk, recipients: draft.userIds.length, sendAt: sendAt ?? null });
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
   * Cancels a scheduled notification: it never starts. One transition, in one place: a notification
   * that a worker has already started (or that was never scheduled) is a 409.
   */
  async cancel(projectId: string, id: string) {
    // A broadcast is canceled until it ends: its pages not yet sent are not sent (docs/audiences.md).
    const { count } = await this.db.notification.updateMany({
      where: { id, projectId, OR: [{ status: 'scheduled' }, { status: { in: ['queued', 'processing'] }, audience: { not: Prisma.DbNull } }] },
      data: { status: 'canceled', completedAt: new Date() },
    });
    const n = await this.db.notification.findFirst({ where: { id, projectId } });
    if (!n) throw AppError.notFound(NOTIFICATION_NOT_FOUND);
    if (!count) throw AppError.conflict(n.audience !== null ? `${BROADCAST_ENDED} (this one is ${n.status})` : `${NOT_SCHEDULED} (this one is ${n.status})`);
    // The delayed job would find the notification canceled and do nothing; removing it spares that.
    await this.queue
      .getJob(deliverJobId(id))
      .then((job) => job?.remove())
      .catch(() => undefined);
    // Best effort here: if it fails, the worker's webhook sweeper emits the event for the final status.
    await this.webhookEvents?.emit(projectId, [notificationEvent(n)]).catch(() => undefined);
    return toSummary(n);
  }

  /**
   * A notification with its deliveries. A broadcast's (or any, when asked) come a page at a time in
   * device id order, read on the (notification, device) index: as fast at a million deliveries as at ten.
   */
  async get(projectId: string, id: string, q: { deliveriesLimit?: number; deliveriesAfter?: string } = {}) {
    const n = await this.db.notification.findFirst({ where: { id, projectId } });
    if (!n) throw AppError.notFound(NOTIFICATION_NOT_FOUND);
    const limit = q.deliveriesLimit ?? (n.audience !== null || q.deliveriesAfter ? DEFAULT_BROADCAST_DELIVERIES : undefined);
    if (limit === undefined) {
      const deliveries = await this.db.delivery.findMany({ where: { notificationId: id, status: { not: 'pending' } }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], select: DELIVERY_FIELDS });
      return { ...toSummary(n), deliveries };
    }
    const rows = await this.db.delivery.findMany({
      where: { notificationId: id, status: { not: 'pending' }, deviceId: q.deliveriesAfter ? { gt: q.deliveriesAfter } : { not: null } },
      orderBy: { deviceId: 'asc' },
      take: limit + 1,
      select: DELIVERY_FIELDS,
    });
    const deliveries = rows.slice(0, limit);
    return { ...toSummary(n), deliveries, nextDeliveriesAfter: rows.length > limit ? deliveries[limit - 1].deviceId : null };
  }

  async list(projectId: string, p: { page: number; limit: number }) {
    const [rows, total] = await Promise.all([
      this.db.notification.findMany({ where: { projectId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip: (p.page - 1) * p.limit, take: p.limit }),
      this.db.notification.count({ where: { projectId } }),
    ]);
    return page(rows.map(toSummary), total, p);
  }
}
