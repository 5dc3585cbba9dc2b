import type { Logger } from 'pino';
import { notificationEvent, sqlPool, tokenRemovedEvent, type Db, type WebhookEvents } from '@herald/db';
import type { DeliveryObserver } from '../delivery/delivery.service';
import { GroupCommit } from '../delivery/group-commit';

const NONE: ReadonlySet<string> = new Set();

/**
 * What the delivery path tells webhooks: a notification reached its final status, or a dead token was
 * pruned. Called after the final write, without waiting on it: emitting never fails or slows a
 * delivery, and the webhook sweeper emits a notification's outcome event that was missed.
 */
export class OutcomeEvents {
  private readonly inFlight = new Set<Promise<void>>();
  /**
   * The event types each project's enabled endpoints subscribe to, read for every project whose
   * notifications finish together in one query: a stream of one-user sends pays one read per
   * batch, not one per notification.
   */
  private readonly subscriptions: GroupCommit<string, ReadonlySet<string>>;

  constructor(
    private readonly db: Db,
    private readonly events: WebhookEvents,
    private readonly logger: Logger,
  ) {
    this.subscriptions = new GroupCommit(async (projectIds) => {
      // Through node-postgres: Prisma's own work per query costs more than this indexed read.
      const { rows: endpoints } = await sqlPool(db).query<{ projectId: string; events: string[] }>({
        name: 'herald_webhookSubscriptions',
        text: `SELECT "projectId", "events" FROM "WebhookEndpoint" WHERE "projectId" = ANY($1::uuid[]) AND "enabled"`,
        values: [[...new Set(projectIds)]],
      });
      const types = new Map<string, Set<string>>();
      for (const e of endpoints) {
        const set = types.get(e.projectId) ?? new Set<string>();
        e.events.forEach((t) => set.add(t));
        types.set(e.projectId, set);
      }
      return projectIds.map((id) => types.get(id) ?? NONE);
    });
  }

  /** Delivery's observer: each event starts an emission without waiting on it. Never throws. */
  observer(): DeliveryObserver {
    return {
      finished: (n) => this.track(this.notificationFinished(n.notificationId, { projectId: n.projectId, status: n.status })),
      pruned: (p) => this.track(this.tokensRemoved(p.notificationId, [p.deviceId], p.projectId)),
    };
  }

  /** Waits for the emissions under way (at shutdown). */
  async drain(): Promise<void> {
    while (this.inFlight.size) await Promise.all([...this.inFlight]);
  }

  private track(p: Promise<void>) {
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
  }

  /**
   * `notification.<status>`, once per notification (emitting it again is a no-op). With the project
   * and status known, a project without a subscribed endpoint costs a share of one batched read.
   */
  async notificationFinished(notificationId: string, known?: { projectId: string; status: string }): Promise<void> {
    try {
      if (known) {
        if (!(await this.subscriptions.submit(known.projectId)).has(`notification.${known.status}`)) return;
      }
      const n = await this.db.notification.findUnique({ where: { id: notificationId } });
      if (n) await this.events.emit(n.projectId, [notificationEvent(n)]);
    } catch (err) {
      this.logger.warn({ notificationId, err: { message: (err as Error).message } }, 'could not emit the notification webhook event; the sweeper will');
    }
  }

  /** `device.token_removed` for devices a notification's delivery found dead (and deleted). */
  async tokensRemoved(notificationId: string, deviceIds: string[], projectId?: string): Promise<void> {
    if (!deviceIds.length) return;
    try {
      projectId ??= (await this.db.notification.findUnique({ where: { id: notificationId }, select: { projectId: true } }))?.projectId;
      if (!projectId) return;
      // The delivery rows outlive the device: they hold its user, platform and the provider's error.
      const rows = await this.db.delivery.findMany({
        where: { notificationId, deviceId: { in: deviceIds }, tokenRemoved: true },
        select: { userId: true, deviceId: true, platform: true, error: true, providerConfigId: true },
      });
      if (!rows.length) return;
      const providerIds = [...new Set(rows.flatMap((r) => (r.providerConfigId ? [r.providerConfigId] : [])))];
      const providers = new Map((await this.db.providerConfig.findMany({ where: { id: { in: providerIds } }, select: { id: true, provider: true } })).map((p) => [p.id, p.provider]));
      const events = rows.map((r) =>
        tokenRemovedEvent({
          userId: r.userId,
          deviceId: r.deviceId!,
          platform: r.platform,
          provider: (r.providerConfigId && providers.get(r.providerConfigId)) || 'fcm',
          error: r.error ?? 'UNREGISTERED',
          notificationId,
        }),
      );
      await this.events.emit(projectId, events);
    } catch (err) {
      this.logger.warn({ notificationId, err: { message: (err as Error).message } }, 'could not emit device.token_removed webhook events');
    }
  }
}
