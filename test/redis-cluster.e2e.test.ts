import { startPipeline, unique, waitUntil, type Pipeline } from '@herald/testing';
import { startRedisCluster, type PrivateRedisCluster } from './redis-cluster';

/**
 * Herald on a Redis Cluster (REDIS_CLUSTER_NODES): the API and the worker on the local 3+3 cluster,
 * every key under the queue prefix's hash tag. Sends are delivered exactly once, the limits count, and a
 * master failing over mid-load (its replica promoted) loses no accepted notification.
 */
let cluster: PrivateRedisCluster;
let p: Pipeline;
beforeAll(async () => {
  cluster = await startRedisCluster({ nodeTimeoutMs: 2000 });
  const env = { REDIS_CLUSTER_NODES: cluster.nodes };
  p = await startPipeline({ ...env, SWEEP_INTERVAL_MS: '1000' }, { ...env, RATE_LIMIT_SEND: '100000', RATE_LIMIT_SEND_BULK: '3' });
  await p.startWorker();
}, 90_000);
afterAll(async () => {
  await p?.close();
  await cluster?.close();
}, 60_000);

async function devices(count: number) {
  const t = await p.project();
  const prefix = unique('rc');
  const users = Array.from({ length: count }, (_, i) => `${prefix}-u${i}`);
  await p.h.db.device.createMany({ data: users.map((userId) => ({ projectId: t.project.id, provider: 'fcm', platform: 'android', userId, deviceToken: `${userId}-tok` })) });
  const copies = () => {
    const counts = new Map<string, number>();
    for (const m of p.emulator.received()) if (m.token!.startsWith(prefix)) counts.set(m.token!, (counts.get(m.token!) ?? 0) + 1);
    return counts;
  };
  return { t, users, copies };
}

it('the keys carry the prefix as a hash tag; one-user and bulk sends are delivered exactly once; the limits count on the cluster', async () => {
  expect(p.h.container.config.queuePrefix).toMatch(/^\{[^}]+\}$/);
  const { t, users, copies } = await devices(50);
  const send = () => p.h.post('/push/send', { apiKey: t.apiKey.key, body: { userId: users[0], templateId: t.templateId, variables: { name: 'x', count: 1 } } });
  const one = await send();
  expect(one.status).toBe(202);
  const bulk = await p.h.post('/push/send-bulk', { apiKey: t.apiKey.key, body: { userIds: users, templateId: t.templateId, variables: { name: 'x', count: 1 } } });
  expect(bulk.status).toBe(202);
  await p.waitForNotification(t.apiKey.key, one.body.notificationId);
  expect((await p.waitForNotification(t.apiKey.key, bulk.body.notificationId)).stats).toMatchObject({ devices: 50, sent: 50 });
  const counts = copies();
  expect(counts.size).toBe(50);
  expect(counts.get(`${users[0]}-tok`)).toBe(2);
  // RATE_LIMIT_SEND_BULK=3 per key per minute, counted in the cluster: the fourth bulk is refused.
  const sendBulk = async () => (await p.h.post('/push/send-bulk', { apiKey: t.apiKey.key, body: { userIds: [users[1]], templateId: t.templateId, variables: { name: 'x', count: 1 } } })).status;
  expect([await sendBulk(), await sendBulk(), await sendBulk()]).toEqual([202, 202, 429]);
  const client = cluster.client();
  await new Promise((resolve) => client.once('ready', resolve));
  const keys = await Promise.all(client.nodes('master').map((node) => node.keys('*')));
  expect(keys.flat().length).toBeGreaterThan(0);
  expect(keys.flat().every((k) => k.startsWith(p.h.container.config.queuePrefix))).toBe(true);
}, 60_000);

it('a master failing over mid-load (its replica promoted) loses no accepted notification', async () => {
  const { t, users, copies } = await devices(200);
  const accepted: string[] = [];
  let refused = 0;
  let next = 0;
  const sender = async () => {
    while (next < users.length) {
      const userId = users[next++];
      const res = await p.h.post('/push/send', { apiKey: t.apiKey.key, body: { userId, templateId: t.templateId, variables: { name: 'x', count: 1 } } }).catch(() => undefined);
      if (res?.status === 202) accepted.push(res.body.notificationId);
      else refused++;
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const load = Promise.all(Array.from({ length: 4 }, sender));
  await waitUntil(() => accepted.length >= 20, 20_000, () => `20 sends accepted (${accepted.length}, refused ${refused})`, 10);
  const { killed, promoted } = await cluster.failover(`${p.h.container.config.queuePrefix}:x`);
  expect(killed).not.toBe(promoted);
  await load;
  expect(accepted.length).toBeGreaterThan(20);
  const final = await Promise.all(accepted.map((id) => p.waitForNotification(t.apiKey.key, id, 90_000)));
  expect(final.filter((n) => n.status !== 'completed')).toEqual([]);
  const counts = copies();
  expect(counts.size).toBeGreaterThanOrEqual(accepted.length);
  // Lost: none. Repeated: at most the requests in flight at the failover, each marked.
  const repeated = [...counts].filter(([, c]) => c > 1).length;
  const marked = await p.h.db.delivery.count({ where: { notificationId: { in: accepted }, possiblyDelivered: true } });
  expect(repeated).toBeLessThanOrEqual(marked);
}, 150_000);
