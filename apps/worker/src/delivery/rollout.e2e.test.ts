import { rolloutBucket } from '@herald/core';
import { nextMinute, startPipeline, startReceiver, unique, waitUntil, type Pipeline, type Receiver } from '@herald/testing';

/**
 * Staged rollouts end to end: API → Postgres + Redis → a worker → FCM emulator, and the halt's
 * webhook event at a real receiver. Two devices in five have `unregistered-` tokens, which the
 * emulator answers UNREGISTERED: every stage meets about 40 % invalid tokens.
 */
let p: Pipeline;
let r: Receiver;
beforeAll(async () => {
  r = await startReceiver();
  // A database of its own: every worker's rollout monitor weighs the rollouts of its whole database, so
  // another suite's worker (another queue prefix, no private webhooks) would halt these and send the event.
  p = await startPipeline({ WORKER_CONCURRENCY: '4', WEBHOOK_ALLOW_PRIVATE: 'true' }, { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_HTTP_HOSTS: '127.0.0.1' }, { ownDatabase: true });
}, 60_000);
afterAll(async () => {
  await p.close();
  await r.close();
});

type Tenant = Awaited<ReturnType<Pipeline['project']>>;

/** `count` android devices, one per user; every fifth and fifth-plus-one has a dead (`unregistered-`) token. */
async function seed(t: Tenant, count: number) {
  const prefix = unique('r');
  const data = Array.from({ length: count }, (_, i) => ({
    projectId: t.project.id,
    userId: `${prefix}-u${i}`,
    deviceToken: i % 5 < 2 ? `unregistered-${prefix}-${i}` : `${prefix}-${i}`,
    provider: 'fcm',
    platform: 'android',
  }));
  await p.h.db.device.createMany({ data });
  return p.h.db.device.findMany({ where: { projectId: t.project.id, userId: { startsWith: prefix } }, select: { id: true, deviceToken: true } });
}

/** How often the emulator accepted each of these tokens. */
const receivedBy = (tokens: string[]) => {
  const wanted = new Set(tokens);
  const counts = new Map<string, number>();
  for (const m of p.emulator.received()) if (wanted.has(m.token!)) counts.set(m.token!, (counts.get(m.token!) ?? 0) + 1);
  return counts;
};

const ROLLOUT = { stages: [20, 100], waitSeconds: 1, haltWhen: { failureRate: 0.9, invalidTokenRate: 0.2 } };

async function broadcast(t: Tenant, rollout: unknown = ROLLOUT) {
  const res = await p.h.post('/push/broadcast', { apiKey: t.apiKey.key, body: { templateId: t.templateId, variables: { name: 'all', count: 1 }, audience: { all: true }, rollout } });
  expect(res.status).toBe(202);
  return res.body.notificationId as string;
}

const read = async (t: Tenant, id: string) => (await p.h.get(`/push/notifications/${id}`, { apiKey: t.apiKey.key })).body;

async function waitForStatus(t: Tenant, id: string, status: string, timeoutMs = 30_000) {
  let n: { status?: string } = {};
  await waitUntil(async () => (n = await read(t, id)).status === status, timeoutMs, () => `status ${status} (is ${n.status})`, 200);
  return read(t, id);
}

it('halts after a stage with 40 % invalid tokens, with its figures, a webhook event and an audit entry; resume finishes it once per device', async () => {
  const worker = await p.startWorker();
  const t = await p.project();
  const path = `/${unique('halted')}`;
  const hook = await p.h.post(`/projects/${t.project.id}/webhooks`, { token: t.owner.accessToken, body: { url: r.url(path), events: ['notification.halted', 'notification.completed', 'notification.partially_failed'] } });
  expect(hook.status).toBe(201);
  const devices = await seed(t, 1000);
  const id = await broadcast(t);

  // The first stage's devices, as the hash picks them: the same in the worker's SQL and here.
  const first = devices.filter((d) => rolloutBucket(id, d.id) < 20);
  const firstDead = first.filter((d) => d.deviceToken.startsWith('unregistered-'));
  const halted = await waitForStatus(t, id, 'halted');
  expect(halted.rollout).toMatchObject({
    stages: [20, 100],
    currentStage: 0,
    stageFigures: [{ percent: 20, devices: first.length, sent: first.length - firstDead.length, failed: firstDead.length, invalidTokens: firstDead.length }],
    haltedAt: expect.any(String),
    haltReason: expect.stringMatching(/^Invalid-token rate \d+(\.\d)? % over the bound 20 % in stage 1$/),
  });
  expect(firstDead.length / first.length).toBeGreaterThan(0.2);
  // Only the first stage was sent.
  const live = devices.filter((d) => !d.deviceToken.startsWith('unregistered-')).map((d) => d.deviceToken);
  expect(receivedBy(live).size).toBe(first.length - firstDead.length);

  // On failure, what the worker said about it.
  const [event] = await r.waitFor(path, 1).catch((err: Error) => {
    throw new Error(`${err.message}\n${worker.output.join('').split('\n').filter((l) => /halted|webhook/i.test(l)).slice(-20).join('\n')}`);
  });
  const payload = JSON.parse(event.body);
  expect(payload).toMatchObject({ type: 'notification.halted', data: { notification: { id, status: 'halted' }, rollout: { currentStage: 0, haltReason: halted.rollout.haltReason } } });
  const audit = await p.h.db.auditEntry.findFirst({ where: { projectId: t.project.id, action: 'notification.halted', targetId: id } });
  expect(audit).toMatchObject({ actorType: 'system' });

  // A halted rollout is not final: the sweeper leaves it, and it stays halted until resumed.
  await new Promise((res) => setTimeout(res, 2000));
  expect((await read(t, id)).status).toBe('halted');

  const resumed = await p.h.post(`/push/notifications/${id}/resume`, { apiKey: t.apiKey.key });
  expect(resumed.status).toBe(200);
  expect(resumed.body).toMatchObject({ status: 'processing', rollout: { currentStage: 1, haltedAt: null } });
  const again = await p.h.post(`/push/notifications/${id}/resume`, { apiKey: t.apiKey.key });
  expect(again.status).toBe(409);

  const done = await p.waitForNotification(t.apiKey.key, id, 60_000);
  expect(done).toMatchObject({ status: 'partially_failed', stats: { devices: 1000, sent: live.length, failed: 400, invalidTokensRemoved: 400 } });
  const counts = receivedBy(live);
  expect(counts.size).toBe(live.length);
  expect([...counts.values()].every((c) => c === 1)).toBe(true);
  const rows = await p.h.db.delivery.groupBy({ by: ['deviceId'], where: { notificationId: id }, _count: true });
  expect(rows).toHaveLength(1000);
  expect(rows.every((row) => row._count === 1)).toBe(true);
  expect(await p.h.db.auditEntry.count({ where: { projectId: t.project.id, action: 'notification.resumed', targetId: id } })).toBe(1);
  await worker.stop('SIGTERM');
}, 120_000);

it('a halted rollout canceled sends nothing more', async () => {
  const worker = await p.startWorker();
  const t = await p.project();
  const devices = await seed(t, 500);
  const id = await broadcast(t, { ...ROLLOUT, waitSeconds: 0 });
  const halted = await waitForStatus(t, id, 'halted');
  const sentInStage = halted.rollout.stageFigures[0].sent;
  const live = devices.filter((d) => !d.deviceToken.startsWith('unregistered-')).map((d) => d.deviceToken);

  const cancel = await p.h.post(`/push/notifications/${id}/cancel`, { apiKey: t.apiKey.key });
  expect(cancel.status).toBe(200);
  expect(cancel.body.status).toBe('canceled');
  const resume = await p.h.post(`/push/notifications/${id}/resume`, { apiKey: t.apiKey.key });
  expect(resume.status).toBe(409);
  await new Promise((res) => setTimeout(res, 3000));
  expect(receivedBy(live).size).toBe(sentInStage);
  expect((await read(t, id)).status).toBe('canceled');
  await worker.stop('SIGTERM');
}, 90_000);

it('a rollout within its bounds goes through every stage by itself', async () => {
  const worker = await p.startWorker();
  const t = await p.project();
  const devices = await seed(t, 300);
  const id = await broadcast(t, { stages: [10, 50, 100], waitSeconds: 0, haltWhen: { invalidTokenRate: 0.9 } });
  const done = await p.waitForNotification(t.apiKey.key, id, 60_000);
  expect(done).toMatchObject({ status: 'partially_failed', stats: { devices: 300 }, rollout: { currentStage: 2, haltedAt: null } });
  expect(done.rollout.stageFigures.map((f: { devices: number }) => f.devices)).toEqual([
    devices.filter((d) => rolloutBucket(id, d.id) < 10).length,
    devices.filter((d) => rolloutBucket(id, d.id) >= 10 && rolloutBucket(id, d.id) < 50).length,
  ]);
  await worker.stop('SIGTERM');
}, 90_000);

it('a staged rollout at a local time: no stage sends before the moment, every device once after it', async () => {
  const worker = await p.startWorker();
  const t = await p.project();
  const prefix = unique('rl');
  // Healthy tokens only, in UTC: the moment is the same for all, a few seconds ahead.
  await p.h.db.device.createMany({
    data: Array.from({ length: 60 }, (_, i) => ({ projectId: t.project.id, userId: `${prefix}-u${i}`, deviceToken: `${prefix}-${i}`, provider: 'fcm', platform: 'android', timezone: 'UTC' })),
  });
  const { at, local } = await nextMinute('UTC');
  const res = await p.h.post('/push/broadcast', {
    apiKey: t.apiKey.key,
    body: { templateId: t.templateId, variables: { name: 'all', count: 1 }, audience: { all: true }, deliverAt: { localTime: local }, rollout: { stages: [50, 100], waitSeconds: 0, haltWhen: { invalidTokenRate: 0.5 } } },
  });
  expect(res.status).toBe(202);
  const done = await p.waitForNotification(t.apiKey.key, res.body.notificationId, 90_000);
  expect(done).toMatchObject({ status: 'completed', stats: { devices: 60, sent: 60 }, rollout: { currentStage: 1 } });
  const mine = p.emulator.received().filter((m) => m.token!.startsWith(`${prefix}-`));
  expect(mine).toHaveLength(60);
  expect(new Set(mine.map((m) => m.token)).size).toBe(60);
  expect(Math.min(...mine.map((m) => m.receivedAt))).toBeGreaterThanOrEqual(at);
  await worker.stop('SIGTERM');
}, 120_000);
