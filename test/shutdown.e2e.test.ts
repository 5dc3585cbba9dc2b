import { Client } from 'pg';
import { unique } from './harness';
import { databaseUrlNamed, sessionsGone, sessionsNamed } from './pg-sessions';
import { spawnApi, spawnWorker, type ServiceProcess } from './pipeline';

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
    expect(await service.stop('SIGTERM')).toBe(0);
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
