import { randomUUID } from 'node:crypto';
import { unique, type Harness } from '@herald/testing';

/**
 * A notification delivered as the worker leaves one, written straight to the database (these tests
 * are about the API; the worker's part is tested end to end in engagement.e2e.test.ts): `sent`
 * deliveries FCM accepted `sentAgoMs` ago and `failed` ones, then the notification's final status in
 * one UPDATE, as the worker writes it (which counts it in the daily series).
 */
export async function deliveredNotification(h: Harness, projectId: string, opts: { sent?: number; failed?: number; label?: string; templateId?: string; sentAgoMs?: number; dryRun?: boolean } = {}) {
  const { sent = 3, failed = 0, sentAgoMs = 60_000, dryRun = false } = opts;
  const templateId = opts.templateId ?? (await h.db.pushTemplate.create({ data: { projectId, name: unique('tpl'), title: 'Hi', body: 'There' } })).id;
  const userIds = Array.from({ length: sent + failed }, (_, i) => `user-${i}`);
  const n = await h.db.notification.create({
    data: {
      projectId,
      templateId,
      userIds,
      variables: {},
      recipients: userIds.length,
      devices: userIds.length,
      pendingDeliveries: userIds.length,
      status: 'processing',
      dryRun,
      options: opts.label ? { analyticsLabel: opts.label } : undefined,
    },
  });
  const sentAt = new Date(Date.now() - sentAgoMs);
  const deliveries = userIds.map((userId, i) => ({
    id: randomUUID(),
    notificationId: n.id,
    userId,
    deviceId: randomUUID(),
    platform: 'android',
    status: i < sent ? (dryRun ? ('validated' as const) : ('sent' as const)) : ('failed' as const),
    updatedAt: sentAt,
  }));
  await h.db.delivery.createMany({ data: deliveries });
  await h.db.$executeRaw`UPDATE "Notification" SET "status" = ${failed ? (sent ? 'partially_failed' : 'failed') : 'completed'}::"NotificationStatus",
    "sent" = ${sent}, "failed" = ${failed}, "pendingDeliveries" = 0, "completedAt" = now() WHERE "id" = ${n.id}::uuid`;
  return { notificationId: n.id, templateId, sentAt, sentIds: deliveries.slice(0, sent).map((d) => d.id), failedIds: deliveries.slice(sent).map((d) => d.id) };
}

export const today = () => new Date().toISOString().slice(0, 10);
