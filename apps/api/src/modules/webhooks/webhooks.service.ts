import { randomUUID } from 'node:crypto';
import {
  AppError,
  generateWebhookSecret,
  sealSecret,
  WEBHOOK_TEST_EVENT,
  webhookSealContext,
  webhookUrlProblem,
  type KeyRing,
  type WebhookAddressPolicy,
  type WebhookEventType,
} from '@herald/core';
import { auditChanges, SECRET_CHANGED, writeAudit, type AuditSource, type Db, type WebhookEndpoint, type WebhookEvents } from '@herald/db';
import { page } from '../../http/pagination';

export const WEBHOOK_NOT_FOUND = 'Webhook not found';
export const tooManyEndpoints = (max: number) => `The project has ${max} webhook endpoints already, the most it may hold: delete one first`;
/** How long the secret before a rotation keeps signing requests beside the new one. */
export const ROTATION_GRACE_MS = 24 * 3600 * 1000;

const iso = (d: Date | null) => d?.toISOString() ?? null;

const toWebhook = (e: WebhookEndpoint) => ({
  id: e.id,
  url: e.url,
  description: e.description,
  events: e.events as WebhookEventType[],
  enabled: e.enabled,
  failingSince: iso(e.failingSince),
  disabledAt: iso(e.disabledAt),
  previousSecretExpiresAt: e.previousSecretExpiresAt && e.previousSecretExpiresAt > new Date() ? e.previousSecretExpiresAt.toISOString() : null,
  createdAt: e.createdAt.toISOString(),
  updatedAt: e.updatedAt.toISOString(),
});

interface WebhookInput {
  url?: string;
  events?: WebhookEventType[];
  enabled?: boolean;
  description?: string | null;
}

/**
 * A project's webhook endpoints. The signing secret is generated here, shown once (at creation and
 * at each rotation) and stored as an AES-256-GCM envelope bound to its endpoint. Every query is
 * scoped by the project: another project's endpoint id is a 404.
 */
/** An endpoint's fields as the audit log records them (its secret only as "changed"). */
const WEBHOOK_AUDITED = ['url', 'events', 'enabled', 'description'] as const;

export class WebhooksService {
  constructor(
    private readonly db: Db,
    private readonly keys: KeyRing,
    private readonly policy: WebhookAddressPolicy,
    private readonly events: WebhookEvents,
    /** Endpoints a project may hold (WEBHOOK_ENDPOINTS_PER_PROJECT): each is work the shared workers do. */
    private readonly maxPerProject: number,
  ) {}

  async create(projectId: string, input: Required<Pick<WebhookInput, 'url' | 'events'>> & WebhookInput, source: AuditSource) {
    this.checkUrl(input.url);
    const id = randomUUID();
    const secret = generateWebhookSecret();
    const row = await this.db.$transaction(async (tx) => {
      // The project's row is locked, so that concurrent creations cannot pass the cap together.
      await tx.$queryRaw`SELECT 1 FROM "Project" WHERE "id" = ${projectId}::uuid FOR UPDATE`;
      if ((await tx.webhookEndpoint.count({ where: { projectId } })) >= this.maxPerProject) throw AppError.conflict(tooManyEndpoints(this.maxPerProject));
      const created = await tx.webhookEndpoint.create({
        data: {
          id,
          projectId,
          url: input.url,
          events: input.events,
          enabled: input.enabled ?? true,
          description: input.description ?? null,
          secret: sealSecret(secret, this.keys, webhookSealContext(id)),
          keyId: this.keys.currentKeyId,
        },
      });
      await writeAudit(tx, source, { projectId, action: 'webhook.created', target: { type: 'webhook', id }, changes: auditChanges(null, created, WEBHOOK_AUDITED, ['secret']) });
      return created;
    });
    return { ...toWebhook(row), secret };
  }

  async list(projectId: string) {
    const rows = await this.db.webhookEndpoint.findMany({ where: { projectId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
    return rows.map(toWebhook);
  }

  async get(projectId: string, webhookId: string) {
    return toWebhook(await this.find(projectId, webhookId));
  }

  async update(projectId: string, webhookId: string, input: WebhookInput, source: AuditSource) {
    if (input.url !== undefined) this.checkUrl(input.url);
    // Enabling an endpoint again starts its failure count afresh.
    const reenable = input.enabled === true ? { failingSince: null, disabledAt: null } : {};
    const row = await this.db.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT 1 FROM "WebhookEndpoint" WHERE "id" = ${webhookId}::uuid FOR UPDATE`;
      const before = await tx.webhookEndpoint.findFirst({ where: { id: webhookId, projectId } });
      if (!before) throw AppError.notFound(WEBHOOK_NOT_FOUND);
      const after = await tx.webhookEndpoint.update({ where: { id: webhookId, projectId }, data: { ...input, ...reenable } });
      const changes = auditChanges(before, after, WEBHOOK_AUDITED);
      if (Object.keys(changes).length) await writeAudit(tx, source, { projectId, action: 'webhook.updated', target: { type: 'webhook', id: webhookId }, changes });
      return after;
    });
    return toWebhook(row);
  }

  /** Its pending deliveries go with it: nothing more is sent to it. */
  async remove(projectId: string, webhookId: string, source: AuditSource) {
    await this.db.$transaction(async (tx) => {
      const before = await tx.webhookEndpoint.findFirst({ where: { id: webhookId, projectId } });
      if (!before || !(await tx.webhookEndpoint.deleteMany({ where: { id: webhookId, projectId } })).count) throw AppError.notFound(WEBHOOK_NOT_FOUND);
      await writeAudit(tx, source, { projectId, action: 'webhook.deleted', target: { type: 'webhook', id: webhookId }, changes: auditChanges(before, null, WEBHOOK_AUDITED) });
    });
    return { message: 'Webhook deleted' };
  }

  /** A new secret; the current one keeps signing too (a second signature) for 24 hours. */
  async rotateSecret(projectId: string, webhookId: string, source: AuditSource) {
    const current = await this.find(projectId, webhookId);
    const secret = generateWebhookSecret();
    await this.db.$transaction(async (tx) => {
    const { count } = await tx.webhookEndpoint.updateMany({
      // Only if no other rotation came in between, which would make this one drop a secret still in use.
      where: { id: webhookId, projectId, secret: current.secret },
      data: {
        secret: sealSecret(secret, this.keys, webhookSealContext(webhookId)),
        keyId: this.keys.currentKeyId,
        previousSecret: current.secret,
        previousKeyId: current.keyId,
        previousSecretExpiresAt: new Date(Date.now() + ROTATION_GRACE_MS),
      },
    });
    if (!count) throw new AppError(409, 'The secret was rotated meanwhile; try again');
      await writeAudit(tx, source, { projectId, action: 'webhook.secret_rotated', target: { type: 'webhook', id: webhookId }, changes: { secret: SECRET_CHANGED } });
    });
    return { ...toWebhook(await this.find(projectId, webhookId)), secret };
  }

  /** Queues a `webhook.test` event for this endpoint alone; its delivery shows in the deliveries list. */
  async sendTest(projectId: string, webhookId: string) {
    const endpoint = await this.find(projectId, webhookId);
    if (!endpoint.enabled) throw new AppError(409, 'The webhook is disabled; enable it to send a test event');
    const [recorded] = await this.events.emit(
      projectId,
      [{ type: WEBHOOK_TEST_EVENT, data: { webhookId, message: 'A test event sent from Herald' } }],
      { endpointId: webhookId },
    );
    // Disabled or deleted between the read and the insert.
    if (!recorded) throw AppError.notFound(WEBHOOK_NOT_FOUND);
    return { eventId: recorded.eventId, deliveryId: recorded.deliveryIds[0] };
  }

  /** Newest first, each with every attempt. */
  async deliveries(projectId: string, webhookId: string, q: { page: number; limit: number; status?: 'pending' | 'succeeded' | 'failed' }) {
    await this.find(projectId, webhookId);
    const where = { endpointId: webhookId, ...(q.status ? { status: q.status } : {}) };
    const [rows, total] = await Promise.all([
      this.db.webhookDelivery.findMany({
        where,
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        skip: (q.page - 1) * q.limit,
        take: q.limit,
        include: { event: { select: { type: true } }, attemptLog: { orderBy: { attempt: 'asc' } } },
      }),
      this.db.webhookDelivery.count({ where }),
    ]);
    const data = rows.map((d) => ({
      id: d.id,
      eventId: d.eventId,
      eventType: d.event.type as WebhookEventType,
      status: d.status,
      responseStatus: d.responseStatus,
      durationMs: d.durationMs,
      error: d.error,
      nextRetryAt: d.status === 'pending' ? iso(d.nextAttemptAt) : null,
      lastAttemptAt: iso(d.lastAttemptAt),
      createdAt: d.createdAt.toISOString(),
      attempts: d.attemptLog.map((a) => ({
        attempt: a.attempt,
        succeeded: a.succeeded,
        responseStatus: a.responseStatus,
        durationMs: a.durationMs,
        error: a.error,
        responseBody: a.responseBody,
        createdAt: a.createdAt.toISOString(),
      })),
    }));
    return page(data, total, q);
  }

  private async find(projectId: string, webhookId: string) {
    const row = await this.db.webhookEndpoint.findFirst({ where: { id: webhookId, projectId } });
    if (!row) throw AppError.notFound(WEBHOOK_NOT_FOUND);
    return row;
  }

  private checkUrl(url: string) {
    const problem = webhookUrlProblem(url, this.policy);
    if (problem) throw AppError.badRequest(`Invalid request body: url: ${problem}`, [{ path: 'url', message: problem }]);
  }
}
