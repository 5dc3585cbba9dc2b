import type { Queue } from 'bullmq';
import { AppError, compileTemplate, deliverJob, deliverJobId } from '@herald/core';
import { isUniqueViolation, Prisma, type Db, type Notification } from '@herald/db';
import { page } from '../../http/pagination';

export const IDEMPOTENCY_WINDOW_MS = 24 * 3600 * 1000;

export const NOT_CONFIGURED = 'Push notifications are not configured for this project';
export const DISABLED = 'Push notifications are disabled for this project';
export const NO_PROVIDER = 'No enabled push provider is configured for this project';
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
 */
export class NotificationService {
  constructor(
    private readonly db: Db,
    private readonly queue: Queue,
  ) {}

  async send(projectId: string, input: SendInput, idempotencyKey?: string) {
    if (idempotencyKey) {
      const replay = await this.replay(projectId, idempotencyKey);
      if (replay) return replay;
    }
    await this.precheck(projectId, input.templateId, input.variables ?? {});
    const userIds = [...new Set(input.userIds)];

    let notification: Pick<Notification, 'id' | 'bulk' | 'recipients'>;
    try {
      // Set `enqueuedAt` optimistically: if the enqueue below fails, the row is removed.
      const [row] = await this.db.$queryRaw<Pick<Notification, 'id' | 'bulk' | 'recipients'>[]>`
        INSERT INTO "Notification" ("id", "projectId", "templateId", "userIds", "variables", "data", "imageUrl", "recipients", "bulk", "idempotencyKey", "enqueuedAt", "createdAt", "updatedAt")
        VALUES (gen_random_uuid(), ${projectId}::uuid, ${input.templateId}::uuid, ${userIds}::text[], ${JSON.stringify(input.variables ?? {})}::jsonb,
                ${input.data ? JSON.stringify(input.data) : null}::jsonb, ${input.imageUrl ?? null}, ${userIds.length}, ${input.bulk}, ${idempotencyKey ?? null},
                now(), now(), now())
        RETURNING "id", "bulk", "recipients"`;
      notification = row;
    } catch (err) {
      // The same key raced us: the first request wins and this one answers like it.
      if (idempotencyKey && isUniqueViolation(err)) {
        const replay = await this.replay(projectId, idempotencyKey);
        if (replay) return replay;
      }
      throw err;
    }

    try {
      await this.queue.add(deliverJob.name, { notificationId: notification.id }, { ...deliverJob.options, jobId: deliverJobId(notification.id) });
    } catch {
      // Not accepted: remove the row so that nothing is delivered for a request answered 503. (If
      // even that fails, the worker's sweeper delivers it, and a retry with the same
      // Idempotency-Key gets this notification.)
      await this.db.notification.deleteMany({ where: { id: notification.id } }).catch(() => undefined);
      throw AppError.unavailable();
    }
    return accepted(notification);
  }

  /** The first answer for this key within 24 h; an older key is released for reuse. */
  private async replay(projectId: string, idempotencyKey: string) {
    const previous = await this.db.notification.findUnique({ where: { projectId_idempotencyKey: { projectId, idempotencyKey } } });
    if (!previous) return undefined;
    if (Date.now() - previous.createdAt.getTime() < IDEMPOTENCY_WINDOW_MS) return accepted(previous);
    await this.db.notification.updateMany({ where: { id: previous.id, idempotencyKey }, data: { idempotencyKey: null } });
    return undefined;
  }

  /** CONTRACT §8: each a clear 4xx, and nothing queued. One round trip for the three lookups. */
  private async precheck(projectId: string, templateId: string, variables: Record<string, unknown>) {
    const [row] = await this.db.$queryRaw<{ template: { id: string; updatedAt: string; title: string; body: string } | null; config: boolean | null; providers: boolean }[]>`
      SELECT
        (SELECT json_build_object('id', t."id", 'updatedAt', t."updatedAt", 'title', t."title", 'body', t."body")
           FROM "PushTemplate" t WHERE t."id" = ${templateId}::uuid AND t."projectId" = ${projectId}::uuid) AS "template",
        (SELECT c."enabled" FROM "PushConfig" c WHERE c."projectId" = ${projectId}::uuid) AS "config",
        EXISTS (SELECT 1 FROM "ProviderConfig" p WHERE p."projectId" = ${projectId}::uuid AND p."enabled") AS "providers"`;
    const { template, config, providers } = row;
    if (!template) throw AppError.notFound(TEMPLATE_NOT_FOUND);
    if (config === null) throw AppError.conflict(NOT_CONFIGURED);
    if (!config) throw AppError.conflict(DISABLED);
    if (!providers) throw AppError.conflict(NO_PROVIDER);
    const missing = compileTemplate(template).missing(variables);
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
