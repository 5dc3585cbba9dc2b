import { retryJobFor, sharedDeliverJobFor, sharedDeliverJobId } from '@herald/core';
import { startPipeline, unique, waitUntil, type Pipeline } from '@herald/testing';

/**
 * A worker killed with SIGKILL mid-bulk, then restarted: its job's lock expires, another worker takes
 * the job over, and every device ends up delivered exactly once in Herald's records. Only the requests
 * that were in flight at the kill may reach FCM a second time (docs/delivery.md#6).
 */
let p: Pipeline;
beforeAll(async () => {
  // Small batches of slow sends, so that the kill lands mid-job.
  p = await startPipeline({ DELIVERY_BATCH_SIZE: '50', WORKER_CONCURRENCY: '1' });
}, 60_000);
afterAll(() => p.close());

/** A project whose users have devices the emulator answers `slowMs` after each send (platforms taken in turn). */
async function slowDevices(slowMs: number, users: number, perUser: number, platforms = ['android']) {
  const t = await p.project();
  const prefix = unique(`slow${slowMs}`);
  const devices = Array.from({ length: users }, (_, u) =>
    Array.from({ length: perUser }, (_, d) => ({ userId: `${prefix}-u${u}`, deviceToken: `slow${slowMs}-${prefix}-${u}-${d}`, platform: platforms[(u * perUser + d) % platforms.length] })),
  ).flat();
  await p.h.db.device.createMany({ data: devices.map((d) => ({ projectId: t.project.id, provider: 'fcm', ...d })) });
  const sendToAll = async () => {
    const res = await p.h.post('/push/send-bulk', { apiKey: t.apiKey.key, body: { userIds: [...new Set(devices.map((d) => d.userId))], templateId: t.templateId, variables: { name: 'x', count: 1 } } });
    expect(res.status).toBe(202);
    return res.body.notificationId as string;
  };
  return { t, prefix, devices, sendToAll };
}

it('a worker killed mid-bulk and restarted leaves every device delivered exactly once', async () => {
  const { t, devices, sendToAll } = await slowDevices(20, 500, 2, ['android', 'ios', 'web']);
  const first = await p.startWorker();
  const notificationId = await sendToAll();

  // Kill it once some, but not all, devices were delivered.
  await waitUntil(() => p.emulator.received().length >= 150, 20_000, () => `150 messages (${p.emulator.received().length} so far)\n${first.output.join('')}`, 10);
  await first.stop('SIGKILL');
  const sentAtKill = (await p.h.db.delivery.findMany({ where: { notificationId, status: 'sent' }, select: { id: true } })).map((d) => d.id);
  const atKill = sentAtKill.length;
  expect(atKill).toBeLessThan(1000);

  await p.startWorker();
  const n = await p.waitForNotification(t.apiKey.key, notificationId, 45_000);
  expect(n.status).toBe('completed');
  expect(n.stats).toEqual({ recipients: 500, devices: 1000, sent: 1000, failed: 0, invalidTokensRemoved: 0 });

  // Herald's records: exactly one sent delivery per device.
  const rows = await p.h.db.delivery.groupBy({ by: ['deviceId'], where: { notificationId }, _count: true });
  expect(rows).toHaveLength(1000);
  expect(rows.every((r) => r._count === 1)).toBe(true);

  // FCM saw every device; repeats only among the one batch that was in flight.
  const counts = new Map<string, number>();
  for (const m of p.emulator.received()) counts.set(m.token!, (counts.get(m.token!) ?? 0) + 1);
  expect(devices.every((d) => counts.get(d.deviceToken)! >= 1)).toBe(true);
  const repeated = [...counts.values()].filter((c) => c > 1).length;
  expect([...counts.values()].every((c) => c <= 2)).toBe(true);
  expect(repeated).toBeLessThanOrEqual(50);
  expect(repeated).toBeGreaterThan(0); // else the kill landed between batches and proves nothing below

  // Every repeat is the first copy again: the same delivery id in data, the same tag / collapse id /
  // Topic (so the device replaces the one shown), and its delivery is marked possibly delivered.
  const collapseId = notificationId.replaceAll('-', '');
  type Sent = { data?: Record<string, string>; android?: { notification?: { tag?: string } }; apns?: { headers?: Record<string, string> }; webpush?: { headers?: Record<string, string> } };
  const idOf = (m: Sent) => ({
    delivery: m.data?.herald_delivery_id,
    collapse: m.android?.notification?.tag ?? m.apns?.headers?.['apns-collapse-id'] ?? m.webpush?.headers?.Topic,
  });
  const copies = new Map<string, ReturnType<typeof idOf>[]>();
  for (const m of p.emulator.received()) if (counts.has(m.token!)) copies.set(m.token!, [...(copies.get(m.token!) ?? []), idOf(m.message as Sent)]);
  const deliveryOf = new Map((await p.h.db.delivery.findMany({ where: { notificationId } })).map((d) => [d.id, d]));
  for (const [token, list] of copies) {
    expect(list.every((c) => c.collapse === collapseId)).toBe(true);
    expect(new Set(list.map((c) => c.delivery)).size).toBe(1);
    const row = deliveryOf.get(list[0].delivery!);
    expect(row).toBeDefined();
    if (list.length > 1) expect({ token, possiblyDelivered: row!.possiblyDelivered }).toEqual({ token, possiblyDelivered: true });
  }
  // Marked: only what the dead worker still held (pending at the kill); never what it had recorded as sent.
  expect(sentAtKill.filter((id) => deliveryOf.get(id)!.possiblyDelivered)).toEqual([]);
  // The API shows the mark.
  const shown = await p.h.get(`/push/notifications/${notificationId}`, { apiKey: t.apiKey.key });
  const marked = (shown.body.deliveries as { possiblyDelivered: boolean }[]).filter((d) => d.possiblyDelivered).length;
  expect(marked).toBe([...deliveryOf.values()].filter((d) => d.possiblyDelivered).length);
  expect(marked).toBeGreaterThanOrEqual(repeated);
}, 90_000);

it('with a batch larger than what is in flight, answers written before a crash are never sent again', async () => {
  // 300 devices in one batch of 500; the client has 100 requests in flight, each answered after 1.5 s.
  const { t, devices, sendToAll } = await slowDevices(1500, 300, 1);
  const first = await p.startWorker({ DELIVERY_BATCH_SIZE: '500' });
  const notificationId = await sendToAll();

  // The first answers are written while the rest of the batch is still being sent.
  const tokenOf = new Map((await p.h.db.device.findMany({ where: { projectId: t.project.id }, select: { id: true, deviceToken: true } })).map((d) => [d.id, d.deviceToken]));
  const sentRows = async () => (await p.h.db.delivery.findMany({ where: { notificationId, status: 'sent' }, select: { deviceId: true } })).map((r) => tokenOf.get(r.deviceId!)!);
  let written: string[] = [];
  await waitUntil(async () => (written = await sentRows()).length >= 100, 20_000, () => `100 deliveries written mid-batch (${written.length} so far)\n${first.output.join('')}`, 20);
  await first.stop('SIGKILL');
  // What the killed worker had recorded when it died (at least what was seen before the kill).
  const recorded = await sentRows();
  expect(recorded.length).toBeGreaterThanOrEqual(written.length);
  expect(recorded.length).toBeLessThan(300);

  await p.startWorker({ DELIVERY_BATCH_SIZE: '500' });
  const n = await p.waitForNotification(t.apiKey.key, notificationId, 45_000);
  expect(n.stats).toEqual({ recipients: 300, devices: 300, sent: 300, failed: 0, invalidTokensRemoved: 0 });

  const counts = new Map<string, number>();
  for (const m of p.emulator.received()) counts.set(m.token!, (counts.get(m.token!) ?? 0) + 1);
  expect(devices.every((d) => counts.get(d.deviceToken)! >= 1)).toBe(true);
  // Recorded before the kill: sent exactly once. Repeated: only requests whose answer was not yet
  // recorded when the worker died (in flight, or answered a moment before), each at most once more.
  expect(recorded.map((token) => counts.get(token))).toEqual(recorded.map(() => 1));
  expect([...counts.values()].every((c) => c <= 2)).toBe(true);
  const repeated = [...counts].filter(([, c]) => c > 1).map(([token]) => token);
  expect(repeated.filter((token) => recorded.includes(token))).toEqual([]);
}, 90_000);

/**
 * A bulk to `users` slow devices (each answered after `slowMs`) whose rows, while the first job is
 * sending them, are given to a second job (a retry queued again during a backlog): `meanwhile` runs
 * first, once the sends are under way. Every device must get the notification exactly once.
 */
async function copyWhileSending(slowMs: number, users: number, workerEnv: Record<string, string>, meanwhile?: (notificationId: string) => Promise<void>) {
  const { t, prefix, sendToAll } = await slowDevices(slowMs, users, 1);
  await p.startWorker({ WORKER_CONCURRENCY: '2', DELIVERY_BATCH_SIZE: '500', ...workerEnv });
  const notificationId = await sendToAll();
  const mine = () => p.emulator.received().filter((m) => m.token!.startsWith(`slow${slowMs}-${prefix}-`));
  await waitUntil(() => mine().length > 0, 20_000, 'the deliver job to start', 10);
  await meanwhile?.(notificationId);
  const pending = await p.h.db.delivery.findMany({ where: { notificationId, status: 'pending' }, select: { id: true } });
  expect(pending.length).toBeGreaterThan(0);
  const retry = retryJobFor(notificationId, pending.map((r) => r.id));
  await p.h.container.queue.add(retry.name, retry.data, retry.opts);

  const n = await p.waitForNotification(t.apiKey.key, notificationId, 30_000);
  expect(n.stats).toMatchObject({ devices: users, sent: users, failed: 0 });
  await new Promise((r) => setTimeout(r, slowMs + 700)); // a duplicate sent by the copy would have been answered by now
  const counts = new Map<string, number>();
  for (const m of mine()) counts.set(m.token!, (counts.get(m.token!) ?? 0) + 1);
  expect(counts.size).toBe(users);
  expect([...counts.values()].every((c) => c === 1)).toBe(true);
}

it('a second job for rows another job is sending (a retry queued again during a backlog) does not send them again', async () => {
  // The copy comes while the first job's requests are in flight (each answered after 800 ms).
  await copyWhileSending(800, 60, {});
}, 60_000);

it('a job that runs longer than its claims last keeps them renewed: a copy of its work started meanwhile sends nothing again', async () => {
  // Claims last 1 s and are renewed every 333 ms; each send is answered after 2.5 s.
  await copyWhileSending(2500, 40, { WORKER_LOCK_DURATION_MS: '1000' }, async (notificationId) => {
    // Past the first claims' 1 s: without renewal they would have lapsed, and the copy would take the rows.
    await new Promise((r) => setTimeout(r, 1_500));
    const pending = await p.h.db.delivery.findMany({ where: { notificationId, status: 'pending' }, select: { claimedUntil: true } });
    expect(pending.length).toBe(40);
    expect(pending.every((r) => r.claimedUntil! > new Date())).toBe(true);
  });
}, 60_000);

it('a worker killed mid-way through a shared deliver job: its notifications recorded as sent are never sent again, and every one ends final', async () => {
  // One job carrying 40 one-user notifications (as sends accepted together are queued): 20 to
  // devices answered at once, 20 to devices answered after 6 s, still in flight at the kill. (With 3 s,
  // a machine busy with other suites once recorded all 40 before the test got to kill the worker.)
  const t = await p.project();
  const prefix = unique('shared');
  const tokens = Array.from({ length: 40 }, (_, u) => (u < 20 ? `${prefix}-fast-${u}` : `slow6000-${prefix}-${u}`));
  await p.h.db.device.createMany({ data: tokens.map((deviceToken, u) => ({ projectId: t.project.id, provider: 'fcm', platform: 'android', userId: `${prefix}-u${u}`, deviceToken })) });
  const jobId = sharedDeliverJobId();
  const ids: string[] = [];
  for (let u = 0; u < 40; u++) {
    const n = await p.h.db.notification.create({ data: { projectId: t.project.id, templateId: t.templateId, userIds: [`${prefix}-u${u}`], variables: { name: 'x', count: 1 }, recipients: 1, enqueuedAt: new Date(), jobId } });
    ids.push(n.id);
  }
  const job = sharedDeliverJobFor(jobId, ids);
  await p.h.container.queue.add(job.name, job.data, job.opts);
  const first = await p.startWorker();

  const sent = () => p.h.db.notification.findMany({ where: { id: { in: ids }, status: 'completed' }, select: { id: true } });
  let recordedSoFar = 0;
  await waitUntil(async () => (recordedSoFar = (await sent()).length) >= 20, 20_000, () => `the fast half to be recorded (${recordedSoFar} of 20)\n${first.output.join('')}`, 20);
  await first.stop('SIGKILL');
  const recorded = new Set((await sent()).map((n) => n.id));
  expect(recorded.size).toBeLessThan(40);

  await p.startWorker();
  const final = await Promise.all(ids.map((id) => p.waitForNotification(t.apiKey.key, id, 45_000)));
  expect(final.map((n) => [n.status, n.stats.sent])).toEqual(ids.map(() => ['completed', 1]));
  const counts = new Map<string, number>();
  for (const m of p.emulator.received()) if (m.token!.includes(prefix)) counts.set(m.token!, (counts.get(m.token!) ?? 0) + 1);
  expect(tokens.every((token) => (counts.get(token) ?? 0) >= 1)).toBe(true);
  // Recorded before the kill: sent exactly once; the others at most once more (in flight at the kill).
  expect(ids.filter((id) => recorded.has(id)).map((id) => counts.get(tokens[ids.indexOf(id)]))).toEqual([...recorded].map(() => 1));
  expect([...counts.values()].every((c) => c <= 2)).toBe(true);
}, 90_000);
