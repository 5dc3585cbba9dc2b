import { Client } from 'pg';
import { unique } from './harness';
import { databaseUrlNamed, sessionsGone, sessionsNamed } from './pg-sessions';
import { spawnApi, spawnWorker, startPipeline, type ServiceProcess } from './pipeline';
import { waitUntil } from './wait';

/**
 * SIGTERM: each process finishes its work, closes its connections and exits 0, without waiting for
 * its 25–30 s forced exit (which exits 1): nothing it holds keeps the close from completing. That
 * Herald's database close ends node-postgres's pool even where Prisma never connected is proved in
 * packages/db/src/client.test.ts.
 */
describe('stopping the processes', () => {
  let observer: Client;
  beforeAll(async () => {
    observer = new Client({ connectionString: process.env.DATABASE_URL });
    await observer.connect();
  });
  afterAll(() => observer.end());

  const stopsCleanly = async (service: ServiceProcess, name: string) => {
    expect(await sessionsNamed(observer, name)).toBeGreaterThan(0);
    const code = await service.stop('SIGTERM');
    // On failure, how it ended (a signal, say) and what it said last.
    const ended = code === 0 ? '' : `exit ${code}, signal ${service.child.signalCode}:\n${service.output.join('').slice(-3000)}`;
    expect({ code, ended }).toEqual({ code: 0, ended: '' });
    await sessionsGone(observer, name);
    expect(await sessionsNamed(observer, name)).toBe(0);
    const said = service.output.join('');
    expect(said).toContain('shutting down');
  };

  it('the worker closes its database connections and exits 0 (it delivers through node-postgres alone)', async () => {
    const name = unique('worker-stop');
    const worker = spawnWorker({
      DATABASE_URL: databaseUrlNamed(name),
      QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-${name}`,
      SWEEP_INTERVAL_MS: String(24 * 3600 * 1000),
      WORKER_WARM_UP_MESSAGES: '0',
      METRICS_PORT: '0',
    });
    // A worker that cannot start says why, rather than leaving the test to time out.
    const exited = new Promise<never>((_, reject) => worker.child.once('exit', (code) => reject(new Error(`the worker exited (${code}) before it started:\n${worker.output.join('')}`))));
    exited.catch(() => undefined); // it exits at the end of the test as well
    try {
      await Promise.race([worker.ready, exited]);
      await stopsCleanly(worker, name);
    } finally {
      await worker.stop('SIGKILL');
    }
  });

  it('the API closes its database connections and exits 0', async () => {
    const name = unique('api-stop');
    const api = await spawnApi({ DATABASE_URL: databaseUrlNamed(name), QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-${name}` });
    try {
      expect((await fetch(`${api.url}/ready`)).status).toBe(200);
      await stopsCleanly(api, name);
    } finally {
      await api.stop('SIGKILL');
    }
  });
});

/**
 * SIGTERM mid-load: nothing accepted is lost, nothing is sent twice. The API fails readiness first,
 * serves meanwhile, then finishes what it accepted; the worker finishes its jobs or hands back what it
 * has not sent, for another worker to send.
 */
describe('SIGTERM mid-load', () => {
  type Pipeline = Awaited<ReturnType<typeof startPipeline>>;
  let p: Pipeline;
  beforeAll(async () => {
    p = await startPipeline({ DELIVERY_BATCH_SIZE: '20', WORKER_CONCURRENCY: '2' });
  }, 60_000);
  afterAll(() => p.close());

  /** How many copies of each token the emulator received, for the tokens starting with `prefix`. */
  const copies = (prefix: string) => {
    const counts = new Map<string, number>();
    for (const m of p.emulator.received()) if (m.token!.startsWith(prefix)) counts.set(m.token!, (counts.get(m.token!) ?? 0) + 1);
    return counts;
  };

  it('the API: readiness fails first, every request it accepted is delivered exactly once, and it exits 0', async () => {
    await p.startWorker();
    const api = await p.startApi({ RATE_LIMIT_SEND: '100000', SHUTDOWN_READINESS_DELAY_MS: '1500' });
    const t = await p.project();
    const prefix = unique('api-term');
    const users = Array.from({ length: 400 }, (_, i) => `${prefix}-u${i}`);
    await p.h.db.device.createMany({ data: users.map((userId) => ({ projectId: t.project.id, provider: 'fcm', platform: 'android', userId, deviceToken: `${userId}-tok` })) });

    // Sends, 8 at a time, until the API stops answering; SIGTERM once 100 were accepted.
    const accepted: string[] = [];
    const refused: number[] = [];
    let next = 0;
    const sender = async () => {
      while (next < users.length) {
        const userId = users[next++];
        try {
          const res = await api.post('/push/send', { apiKey: t.apiKey.key, body: { userId, templateId: t.templateId, variables: { name: 'x', count: 1 } } });
          if (res.status === 202) accepted.push(res.body.notificationId);
          else refused.push(res.status);
        } catch {
          return; // the listener closed: nothing more is sent to this instance
        }
      }
    };
    const load = Promise.all(Array.from({ length: 8 }, sender));
    await waitUntil(() => accepted.length >= 100, 20_000, () => `100 sends accepted (${accepted.length}; refused ${refused.join(',')})`, 10);
    const exit = api.stop('SIGTERM');
    // Readiness fails (as soon as the signal is handled) while requests are still served.
    let ready: { status: number; body: unknown } = { status: 0, body: undefined };
    await waitUntil(async () => (ready = await api.get('/ready')).status === 503, 1000, () => `/ready to fail (${ready.status})`, 20);
    expect(ready.body).toMatchObject({ message: 'Not ready: shutting down' });
    const acceptedWhileDraining = accepted.length;
    await load;
    const code = await exit;
    expect({ code, output: code === 0 ? '' : api.output.join('').slice(-3000) }).toEqual({ code: 0, output: '' });
    expect(refused).toEqual([]);
    expect(accepted.length).toBeGreaterThan(acceptedWhileDraining); // it kept serving while readiness failed
    expect(api.output.join('')).toContain('no longer accepting connections');

    // 0 lost, 0 repeated.
    const final = await Promise.all(accepted.map((id) => p.waitForNotification(t.apiKey.key, id, 60_000)));
    expect(final.every((n) => n.status === 'completed')).toBe(true);
    await new Promise((r) => setTimeout(r, 500));
    const counts = copies(prefix);
    expect(counts.size).toBe(accepted.length);
    expect([...counts.values()].every((c) => c === 1)).toBe(true);
  }, 120_000);

  it('the worker: stops taking jobs, hands back what it has not sent within its grace period, exits 0; another worker sends the rest exactly once', async () => {
    const t = await p.project();
    const prefix = unique('slow250-wterm');
    const users = Array.from({ length: 300 }, (_, i) => `${prefix}-u${i}`);
    await p.h.db.device.createMany({ data: users.map((userId) => ({ projectId: t.project.id, provider: 'fcm', platform: 'android', userId, deviceToken: `${userId}-tok` })) });
    // Only this worker runs: each batch of 20 takes 250 ms, the bulk ~4 s; it has 2 s to stop (exit 1 past it).
    for (const w of p.workers.splice(0)) await w.stop('SIGTERM');
    const worker = await p.startWorker({ SHUTDOWN_GRACE_MS: '2000' });
    const res = await p.h.post('/push/send-bulk', { apiKey: t.apiKey.key, body: { userIds: users, templateId: t.templateId, variables: { name: 'x', count: 1 } } });
    expect(res.status).toBe(202);
    const notificationId = res.body.notificationId as string;
    await waitUntil(() => copies(prefix).size >= 40, 20_000, () => `40 messages sent\n${worker.output.join('')}`, 10);
    expect(await worker.stop('SIGTERM')).toBe(0);
    expect(worker.output.join('')).toContain('handing back');
    const atStop = copies(prefix).size;
    expect(atStop).toBeLessThan(300);
    // Nothing is pending for a dead claim: what it did not send is free at once.
    const rows = await p.h.db.delivery.findMany({ where: { notificationId, status: 'pending' }, select: { claimedBy: true } });
    expect(rows.length).toBe(300 - atStop);
    expect(rows.every((r) => r.claimedBy === null)).toBe(true);

    await p.startWorker();
    const n = await p.waitForNotification(t.apiKey.key, notificationId, 60_000);
    expect(n.stats).toMatchObject({ devices: 300, sent: 300, failed: 0 });
    await new Promise((r) => setTimeout(r, 500));
    const counts = copies(prefix);
    expect(counts.size).toBe(300);
    expect([...counts.values()].every((c) => c === 1)).toBe(true);
    expect(await p.h.db.delivery.count({ where: { notificationId, possiblyDelivered: true } })).toBe(0);
  }, 120_000);
});
