import { randomUUID } from 'node:crypto';
import { sqlPool } from '@herald/db';
import { startApi, tenant, type Harness } from '@herald/testing';
import { DeliveryRepository } from './repository';

let h: Harness;
let repository: DeliveryRepository;
beforeAll(async () => {
  h = await startApi();
  repository = new DeliveryRepository(sqlPool(h.db), 30_000);
});
afterAll(() => h.close());

describe('DeliveryRepository.record', () => {
  it('writes the outcomes of pending rows only, answers which it wrote, and finishes the notification once', async () => {
    const t = await tenant(h);
    for (const token of ['a', 'b']) await h.db.device.create({ data: { projectId: t.project.id, userId: 'u1', deviceToken: `${token}-${randomUUID()}`, provider: 'fcm', platform: 'android' } });
    const n = await h.db.notification.create({ data: { projectId: t.project.id, templateId: randomUUID(), userIds: ['u1'], variables: {}, recipients: 1 } });
    const { rows } = await repository.plan([{ notificationId: n.id, claimant: 'test' }]);
    expect(rows).toHaveLength(2);
    const [a, b] = rows.map((r) => r.id);
    const provider = randomUUID();
    const sent = (deliveryId: string, providerMessageId: string) => ({ kind: 'sent' as const, deliveryId, providerConfigId: provider, providerMessageId });

    const first = await repository.record([sent(a, 'm-a')]);
    expect([...first.written]).toEqual([a]);
    expect(first.finished).toEqual([]);

    // `a` is final now: its second outcome (a copy of the work answered late) is skipped, `b` is written.
    const second = await repository.record([sent(a, 'm-a-again'), sent(b, 'm-b')]);
    expect([...second.written]).toEqual([b]);
    expect(second.finished).toEqual([{ notificationId: n.id, projectId: t.project.id, status: 'completed' }]);

    // Nothing is pending any more: nothing is written, and the notification does not finish twice.
    expect(await repository.record([sent(b, 'm-b-again')])).toEqual({ written: new Set(), finished: [] });
    const stored = await h.db.delivery.findMany({ where: { notificationId: n.id }, orderBy: { providerMessageId: 'asc' } });
    expect(stored.map((d) => [d.status, d.providerMessageId])).toEqual([
      ['sent', 'm-a'],
      ['sent', 'm-b'],
    ]);
    expect(await h.db.notification.findUniqueOrThrow({ where: { id: n.id } })).toMatchObject({ status: 'completed', sent: 2, failed: 0, pendingDeliveries: 0 });
  });
});

describe('Delivery rows', () => {
  it('take their outcome on their own page: the outcome write changes no index (a heap-only update)', async () => {
    const t = await tenant(h);
    const users = Array.from({ length: 30 }, (_, i) => `page-u${i}`);
    await h.db.device.createMany({ data: users.flatMap((userId) => ['android', 'ios'].map((platform) => ({ projectId: t.project.id, userId, deviceToken: `${platform}-${randomUUID()}`, provider: 'fcm', platform }))) });
    const n = await h.db.notification.create({ data: { projectId: t.project.id, templateId: randomUUID(), userIds: users, variables: {}, recipients: users.length } });
    const { rows } = await repository.plan([{ notificationId: n.id, claimant: 'test' }]);
    expect(rows).toHaveLength(60);
    const pages = async () => {
      const { rows: at } = await sqlPool(h.db).query<{ id: string; page: number }>(`SELECT "id", (ctid::text::point)[0]::int AS "page" FROM "Delivery" WHERE "notificationId" = $1`, [n.id]);
      return new Map(at.map((r) => [r.id, r.page]));
    };
    const before = await pages();
    // Outcomes as FCM's make them: a message name of ~80 characters, or an error.
    const provider = randomUUID();
    const { written } = await repository.record(
      rows.map((r, i) =>
        i % 4 === 3
          ? { kind: 'fail' as const, deliveryId: r.id, providerConfigId: provider, error: 'The registration token is not a valid FCM registration token (INVALID_ARGUMENT)' }
          : { kind: 'sent' as const, deliveryId: r.id, providerConfigId: provider, providerMessageId: `projects/my-project-a1b2c/messages/0:${Date.now()}%${randomUUID().replaceAll('-', '')}` },
      ),
    );
    expect(written.size).toBe(60);
    expect(await pages()).toEqual(before);
  });
});
