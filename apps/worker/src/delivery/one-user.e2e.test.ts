import { deliverJobFor, deliverJobId } from '@herald/core';
import { startPipeline, unique, waitUntil, type Pipeline } from '@herald/testing';

/**
 * The most common workload: many one-user sends, each to one user's device, through the API, the
 * worker process (which delivers many notifications at once, their database work done together) and
 * the FCM emulator.
 */
let p: Pipeline;
beforeAll(async () => {
  // Not a crash test: a production-like lock, so that a loaded test machine does not take a busy
  // worker's jobs for lost (the pipelines' 2 s lock is for the crash tests' quick takeovers).
  p = await startPipeline({ WORKER_LOCK_DURATION_MS: '30000' });
  await p.startWorker();
}, 60_000);
afterAll(() => p.close());

/** `count` calls of `fn`, `concurrency` at a time. */
async function pool<T>(count: number, concurrency: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out = new Array<T>(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        out[i] = await fn(i);
      }
    }),
  );
  return out;
}

it('2,000 one-user sends: every device gets exactly one message, every notification ends with the right stats', async () => {
  const t = await p.project();
  const prefix = unique('one');
  // Users 0–1,799 have one device; 1,800–1,899 two (one of them dead); 1,900–1,999 none.
  const devices = [
    ...Array.from({ length: 1900 }, (_, u) => ({ userId: `${prefix}-u${u}`, deviceToken: `${prefix}-t${u}` })),
    ...Array.from({ length: 100 }, (_, i) => ({ userId: `${prefix}-u${1800 + i}`, deviceToken: `unregistered-${prefix}-${i}` })),
  ];
  await p.h.db.device.createMany({ data: devices.map((d) => ({ projectId: t.project.id, provider: 'fcm', platform: 'android', ...d })) });

  const ids = await pool(2000, 25, async (u) => {
    const res = await p.h.post('/push/send', { apiKey: t.apiKey.key, body: { userId: `${prefix}-u${u}`, templateId: t.templateId, variables: { name: `n${u}`, count: u } } });
    expect(res.status).toBe(202);
    return res.body.notificationId as string;
  });

  let final = 0;
  await waitUntil(
    async () => (final = await p.h.db.notification.count({ where: { id: { in: ids }, status: { in: ['completed', 'partially_failed', 'failed'] } } })) === ids.length,
    240_000,
    () => `2000 final notifications (${final} so far):\n${p.workers[0].output.join('').slice(-3000)}`,
    200,
  );

  // Every live device got exactly one message, with its own user's rendering.
  const received = p.emulator.received().filter((m) => m.token!.startsWith(`${prefix}-t`));
  const byToken = new Map<string, number>();
  for (const m of received) byToken.set(m.token!, (byToken.get(m.token!) ?? 0) + 1);
  expect(byToken.size).toBe(1900);
  const repeated = [...byToken].filter(([, c]) => c !== 1);
  const warnings = () => p.workers.flatMap((w) => w.output.join('').split('\n')).filter((l) => l && !l.includes('"level":30'));
  expect({ repeated: repeated.length, warnings: repeated.length ? warnings() : [] }).toEqual({ repeated: 0, warnings: [] });
  for (const m of received.slice(0, 50)) {
    const u = Number(m.token!.slice(`${prefix}-t`.length));
    expect((m.message as { notification: { title: string; body: string } }).notification).toEqual({ title: `Hello n${u}`, body: `You have ${u} new messages` });
  }

  // Every notification is final with the stats its user's devices call for.
  const rows = await p.h.db.notification.findMany({ where: { id: { in: ids } } });
  const byId = new Map(rows.map((r) => [r.id, r]));
  const stats = (u: number) => {
    const r = byId.get(ids[u])!;
    return { status: r.status, recipients: r.recipients, devices: r.devices, sent: r.sent, failed: r.failed, invalidTokensRemoved: r.invalidTokensRemoved, pending: r.pendingDeliveries, done: r.completedAt !== null };
  };
  const expected = (u: number) => {
    if (u < 1800) return { status: 'completed', recipients: 1, devices: 1, sent: 1, failed: 0, invalidTokensRemoved: 0, pending: 0, done: true };
    if (u < 1900) return { status: 'partially_failed', recipients: 1, devices: 2, sent: 1, failed: 1, invalidTokensRemoved: 1, pending: 0, done: true };
    return { status: 'failed', recipients: 1, devices: 0, sent: 0, failed: 0, invalidTokensRemoved: 0, pending: 0, done: true };
  };
  const wrong = ids.map((_, u) => u).filter((u) => JSON.stringify(stats(u)) !== JSON.stringify(expected(u)));
  expect(wrong.map((u) => ({ u, got: stats(u), want: expected(u) }))).toEqual([]);

  // One delivery row per device (or per user without one), none left pending.
  const deliveries = await p.h.db.delivery.groupBy({ by: ['status'], where: { notificationId: { in: ids } }, _count: true });
  expect(Object.fromEntries(deliveries.map((d) => [d.status, d._count]))).toEqual({ sent: 1900, failed: 100, no_devices: 100 });
  // The dead tokens were pruned.
  expect(await p.h.db.device.count({ where: { projectId: t.project.id, deviceToken: { startsWith: 'unregistered-' } } })).toBe(0);
}, 300_000);

it('a template edited through the API is used for the next send (the worker caches the project until its version changes)', async () => {
  const t = await p.project();
  const userId = unique('cust');
  const token = unique('tok');
  await p.registerDevices(t.apiKey.key, [{ userId, deviceToken: token }]);
  const send = async () => {
    const res = await p.h.post('/push/send', { apiKey: t.apiKey.key, body: { userId, templateId: t.templateId, variables: { name: 'a', count: 1 } } });
    return p.waitForNotification(t.apiKey.key, res.body.notificationId);
  };
  await send();
  const edited = await p.h.put(`/push-templates/${t.templateId}`, { token: t.owner.accessToken, query: { projectId: t.project.id }, body: { title: 'Edited {{name}}' } });
  expect(edited.status).toBe(200);
  await send();
  const titles = p.emulator.received({ token }).map((m) => (m.message as { notification: { title: string } }).notification.title);
  expect(titles).toEqual(['Hello a', 'Edited a']);
});

it('a notification that cannot be rendered fails with the reason and is never queued again', async () => {
  const t = await p.project();
  const userId = unique('cust');
  const token = unique('tok');
  await p.registerDevices(t.apiKey.key, [{ userId, deviceToken: token }]);
  // Written as an accepted send is (so that no check of the API's stands in the way), with a
  // variable whose value Handlebars cannot turn into text.
  const n = await p.h.db.notification.create({
    data: { projectId: t.project.id, templateId: t.templateId, userIds: [userId], variables: { name: { toString: 'x' }, count: 1 }, recipients: 1, enqueuedAt: new Date() },
  });
  const deliver = deliverJobFor(n.id);
  await p.h.container.queue.add(deliver.name, deliver.data, deliver.opts);

  const final = await p.waitForNotification(t.apiKey.key, n.id);
  expect(final.status).toBe('failed');
  expect(final.stats).toEqual({ recipients: 1, devices: 1, sent: 0, failed: 1, invalidTokensRemoved: 0 });
  expect(final.deliveries).toEqual([expect.objectContaining({ status: 'failed', error: expect.stringMatching(/^The template cannot be rendered.*: .+/) })]);
  expect(p.emulator.received({ token })).toEqual([]);

  // Its job completed (nothing to retry), and no other job for it was queued.
  await new Promise((r) => setTimeout(r, 500));
  const job = await p.h.container.queue.getJob(deliverJobId(n.id));
  expect(await job!.getState()).toBe('completed');
  expect(job!.attemptsMade).toBeLessThanOrEqual(1);
  const others = await p.h.container.queue.getJobs(['waiting', 'delayed', 'active', 'failed']);
  expect(others.filter((j) => j.data?.notificationId === n.id)).toEqual([]);
});
