import { randomUUID } from 'node:crypto';
import {
  WEBHOOK_PAYLOAD_VERSION,
  webhookJobFor,
  type DeviceTokenRemovedData,
  rolloutViewOf,
  type NotificationEventData,
  type NotificationHaltedData,
  type WebhookEventInput,
  type WebhookPayload,
} from '@herald/core';
import type { Db } from './client';
import type { Notification } from './generated/prisma/client';

/** The part of a BullMQ queue the emitter uses (structurally; this package does not depend on BullMQ). */
export interface WebhookJobQueue {
  addBulk(jobs: ReturnType<typeof webhookJobFor>[]): Promise<unknown>;
}

export interface RecordedEvent {
  eventId: string;
  deliveryIds: string[];
}

type NotificationSummary = Pick<
  Notification,
  'id' | 'projectId' | 'templateId' | 'createdAt' | 'completedAt' | 'recipients' | 'devices' | 'sent' | 'failed' | 'invalidTokensRemoved'
> & { status: string };

/** `notification.<status>` for a notification that reached a final status, once per notification. */
export function notificationEvent(n: NotificationSummary): WebhookEventInput {
  const data: NotificationEventData = {
    notification: {
      id: n.id,
      status: n.status as NotificationEventData['notification']['status'],
      templateId: n.templateId,
      createdAt: n.createdAt.toISOString(),
      completedAt: n.completedAt?.toISOString() ?? null,
      stats: { recipients: n.recipients, devices: n.devices, sent: n.sent, failed: n.failed, invalidTokensRemoved: n.invalidTokensRemoved },
    },
  };
  return { type: `notification.${n.status}` as WebhookEventInput['type'], data, dedupeKey: `notification:${n.id}` };
}

/** `notification.halted`, once per halted stage (a rollout resumed may halt again at a later stage). */
export function haltedEvent(n: NotificationSummary & Pick<Notification, 'rollout'>): WebhookEventInput {
  const rollout = rolloutViewOf(n.rollout);
  const data: NotificationHaltedData = {
    notification: {
      id: n.id,
      status: 'halted',
      templateId: n.templateId,
      createdAt: n.createdAt.toISOString(),
      completedAt: null,
      stats: { recipients: n.recipients, devices: n.devices, sent: n.sent, failed: n.failed, invalidTokensRemoved: n.invalidTokensRemoved },
    },
    rollout,
  };
  return { type: 'notification.halted', data, dedupeKey: `notification-halted:${n.id}:${rollout.currentStage}` };
}

/** `device.token_removed`, once per device. */
export function tokenRemovedEvent(data: DeviceTokenRemovedData): WebhookEventInput {
  return { type: 'device.token_removed', data, dedupeKey: `token_removed:${data.deviceId}` };
}

/** Where events are written: the client, or a transaction's. */
type EventStore = Pick<Db, 'webhookEndpoint' | '$queryRaw'>;

/**
 * Emits webhook events: each event is stored with its exact body, with one pending delivery per
 * enabled endpoint of the project that subscribes to its type, and the first attempt of each is
 * queued. An event no endpoint wants is not stored at all.
 *
 * At least once: the rows are written before the jobs are queued, and the worker's webhook sweeper
 * queues pending deliveries whose job was lost. Emitting an event with the same `dedupeKey` again is
 * a no-op, so a caller may emit again whenever it is unsure the first call went through.
 */
export class WebhookEvents {
  constructor(
    private readonly db: Db,
    private readonly queue: WebhookJobQueue,
  ) {}

  async emit(projectId: string, events: WebhookEventInput[], options: { endpointId?: string } = {}): Promise<RecordedEvent[]> {
    const recorded = await this.record(projectId, events, options);
    await this.dispatch(recorded.flatMap((r) => r.deliveryIds));
    return recorded;
  }

  /** Queues the first attempt of new deliveries. */
  async dispatch(deliveryIds: string[]): Promise<void> {
    if (deliveryIds.length) await this.queue.addBulk(deliveryIds.map((id) => webhookJobFor(id, 1)));
  }

  /**
   * Stores the events and their deliveries. `endpointId` sends to that one endpoint of the project
   * only, whatever it subscribes to (the test event). `db` may be a transaction's client: the events
   * are then written with the change they report (queue them with `dispatch` once it committed; a
   * dispatch lost on the way is queued by the webhook sweeper).
   */
  async record(projectId: string, events: WebhookEventInput[], options: { endpointId?: string } = {}, db: EventStore = this.db): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    const only = options.endpointId ?? null;
    // One cheap read first: most projects have no endpoint, and most events no subscriber.
    const endpoints = await db.webhookEndpoint.findMany({ where: { projectId, enabled: true, ...(only ? { id: only } : {}) }, select: { events: true } });
    const wanted = (type: string) => only !== null || endpoints.some((e) => e.events.includes(type));
    for (const event of events) {
      if (!endpoints.length || !wanted(event.type)) continue;
      const id = randomUUID();
      const createdAt = new Date();
      const payload: WebhookPayload = { version: WEBHOOK_PAYLOAD_VERSION, type: event.type, id, createdAt: createdAt.toISOString(), data: event.data };
      const rows = await db.$queryRaw<{ id: string; eventId: string }[]>`
        WITH endpoints AS (
          SELECT e."id" FROM "WebhookEndpoint" e
          WHERE e."projectId" = ${projectId}::uuid AND e."enabled"
            AND (${only}::uuid IS NULL AND ${event.type} = ANY(e."events") OR e."id" = ${only}::uuid)
        ), ev AS (
          INSERT INTO "WebhookEvent" ("id", "projectId", "type", "body", "dedupeKey", "createdAt")
          SELECT ${id}::uuid, ${projectId}::uuid, ${event.type}, ${JSON.stringify(payload)}, ${event.dedupeKey ?? null}, ${createdAt}
          WHERE EXISTS (SELECT 1 FROM endpoints)
          ON CONFLICT ("projectId", "dedupeKey") DO NOTHING
          RETURNING "id"
        )
        INSERT INTO "WebhookDelivery" ("id", "endpointId", "eventId", "status", "nextAttemptAt", "createdAt", "updatedAt")
        SELECT gen_random_uuid(), endpoints."id", ev."id", 'pending', now(), now(), now() FROM ev CROSS JOIN endpoints
        RETURNING "id", "eventId"`;
      if (rows.length) out.push({ eventId: id, deliveryIds: rows.map((r) => r.id) });
    }
    return out;
  }
}
