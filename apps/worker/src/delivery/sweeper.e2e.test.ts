import { unique } from '../../../../test/harness';
import { startPipeline, type Pipeline } from '../../../../test/pipeline';

/**
 * The sweeper queues lost work again. This pipeline has a database of its own: the sweeper looks at
 * every notification of its database, and other test files' stale rows are not its business.
 */
let p: Pipeline;
beforeAll(async () => {
  p = await startPipeline({}, {}, { ownDatabase: true });
  await p.startWorker();
}, 60_000);
afterAll(() => p.close());

describe('lost work', () => {
  it('a notification row whose job was lost is picked up by the sweeper', async () => {
    const t = await p.project();
    const userId = unique('cust');
    const token = unique('tok');
    await p.registerDevices(t.apiKey.key, [{ userId, deviceToken: token }]);
    const row = await p.h.db.notification.create({
      data: { projectId: t.project.id, templateId: t.templateId, userIds: [userId], variables: { name: 'lost', count: 1 }, recipients: 1, createdAt: new Date(Date.now() - 60_000) },
    });
    const n = await p.waitForNotification(t.apiKey.key, row.id);
    expect(n.status).toBe('completed');
    expect(p.emulator.received({ token })).toHaveLength(1);
  });

  it('a job without a row delivers nothing', async () => {
    const before = p.emulator.stats().sendRequests;
    await p.h.container.queue.add('deliver', { notificationId: '00000000-0000-4000-8000-000000000001' });
    await new Promise((r) => setTimeout(r, 500));
    expect(p.emulator.stats().sendRequests).toBe(before);
  });
});

