import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { startFcmEmulator, type FcmEmulator } from '@herald/fcm-emulator';
import { dropDatabase, ensureDatabase, migrate } from '../packages/db/src/migrate';
import { serviceAccount, type ServiceAccount } from './credentials';
import { httpRequest, startApi, testEnv, unique, type ApiResponse, type Harness, type RequestOptions } from './harness';
import { tenant, type Tenant } from './fixtures';
import { freePort } from './services';
import { waitUntil } from './wait';

const WORKER_ENTRY = path.join(__dirname, '../apps/worker/dist/main.js');
const API_ENTRY = path.join(__dirname, '../apps/api/dist/main.js');

export interface ServiceProcess {
  child: ChildProcess;
  output: string[];
  /** Resolves with the line with which the service logged that it started. */
  ready: Promise<string>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export type WorkerProcess = ServiceProcess;

/** The worker as its own OS process (the built code), as in production. */
export const spawnWorker = (env: Record<string, string>): WorkerProcess => spawnService(WORKER_ENTRY, env, 'Herald worker started');

/**
 * The API as its own OS process (the built code), as one of several containers behind a load
 * balancer; resolves once it answers `/health`. Requests go over real sockets. `started` gets the
 * process as soon as it is spawned, so that whoever stops it finds it even if it never got ready.
 */
export async function spawnApi(env: Record<string, string>, started?: ServiceProcess[]) {
  const port = await freePort();
  const api = spawnService(API_ENTRY, { PORT: String(port), ...env }, 'Herald API listening');
  started?.push(api);
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitUntil(
      async () => {
        if (api.child.exitCode !== null) throw new Error(`the API exited (${api.child.exitCode})`);
        return (await fetch(`${url}/health`)).status === 200;
      },
      20_000,
      () => `the API process on port ${port}:\n${api.output.join('')}`,
      100,
    );
  } catch (err) {
    await api.stop('SIGKILL');
    throw err;
  }
  const request = <T = any>(method: string, route: string, opts: RequestOptions = {}): Promise<ApiResponse<T>> => httpRequest<T>(url, method, route, opts);
  return {
    ...api,
    url,
    request,
    get: <T = any>(route: string, opts?: RequestOptions) => request<T>('GET', route, opts),
    post: <T = any>(route: string, opts?: RequestOptions) => request<T>('POST', route, opts),
    patch: <T = any>(route: string, opts?: RequestOptions) => request<T>('PATCH', route, opts),
  };
}

export type ApiProcess = Awaited<ReturnType<typeof spawnApi>>;

function spawnService(entry: string, env: Record<string, string>, readyText: string): ServiceProcess {
  const child = spawn(process.execPath, [entry], { env: testEnv(env) as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  let resolveReady: (line: string) => void;
  const ready = new Promise<string>((r) => (resolveReady = r));
  const collect = (chunk: Buffer) => {
    const text = chunk.toString();
    output.push(text);
    const line = text.split('\n').find((l) => l.includes(readyText));
    if (line) resolveReady(line);
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  // 'close', not 'exit': by then everything the process wrote has been read into `output`.
  const exited = new Promise<number | null>((r) => child.once('close', (code) => r(code)));
  return {
    child,
    output,
    ready,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/**
 * API (in this process) + worker (child process) + FCM emulator (in this process, over a socket),
 * with real Postgres and Redis, and a queue prefix of their own so that parallel test files never
 * consume each other's jobs.
 */
export async function startPipeline(workerEnv: Record<string, string> = {}, apiEnv: Record<string, string> = {}, options: { ownDatabase?: boolean } = {}) {
  const emulator: FcmEmulator = await startFcmEmulator({ port: 0 });
  const queuePrefix = `${process.env.QUEUE_PREFIX}-${unique('p')}`;
  // Test files share the run's database; a pipeline that sweeps for lost work must have its own, or
  // it would take other files' notifications (and they its).
  const database = options.ownDatabase ? await privateDatabase() : undefined;
  const dbEnv: Record<string, string> = database ? { DATABASE_URL: database.url } : {};
  const baseApiEnv = { FCM_EMULATOR_HOST: emulator.host, QUEUE_PREFIX: queuePrefix, ...dbEnv };
  const h: Harness = await startApi({ ...baseApiEnv, ...apiEnv });
  const baseWorkerEnv = {
    FCM_EMULATOR_HOST: emulator.host,
    QUEUE_PREFIX: queuePrefix,
    DELIVERY_RETRY_BASE_MS: '50',
    WORKER_LOCK_DURATION_MS: '2000',
    SWEEP_INTERVAL_MS: database ? '1000' : String(24 * 3600 * 1000),
    ...dbEnv,
    METRICS_PORT: '0',
    LOG_LEVEL: 'info',
    ...workerEnv,
  };
  const workers: WorkerProcess[] = [];
  const apiProcesses: ServiceProcess[] = [];

  const p = {
    h,
    emulator,
    queuePrefix,
    workers,
    async startWorker(extra: Record<string, string> = {}) {
      const w = spawnWorker({ ...baseWorkerEnv, ...extra });
      workers.push(w);
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`worker did not start:\n${w.output.join('')}`)), 15_000);
      });
      await Promise.race([w.ready, timeout]).finally(() => clearTimeout(timer));
      return w;
    },

    /** Another API, as its own process, on the pipeline's database, queues and emulator; stopped by `close`. */
    startApi: (extra: Record<string, string> = {}) => spawnApi({ ...baseApiEnv, ...extra }, apiProcesses),

    /** A tenant with push config, one provider per service account (priority in order) and a template. */
    async project(accounts: ServiceAccount[] = [serviceAccount()], template = { title: 'Hello {{name}}', body: 'You have {{count}} new messages', data: { screen: 'inbox' } as Record<string, unknown> }) {
      const t: Tenant = await tenant(h);
      const auth = { token: t.owner.accessToken, query: { projectId: t.project.id } };
      expect((await h.post('/push-config', { ...auth, body: {} })).status).toBe(201);
      const providers = [];
      for (const [i, a] of accounts.entries()) {
        emulator.addServiceAccount({ projectId: a.projectId, clientEmail: a.clientEmail, publicKey: a.publicKey });
        const res = await h.post('/push-config/providers', {
          ...auth,
          body: { provider: 'fcm', name: `fcm-${i}`, priority: i + 1, config: { projectId: a.projectId, clientEmail: a.clientEmail, privateKey: a.privateKey } },
        });
        expect(res.status).toBe(201);
        providers.push(res.body as { id: string });
      }
      const tpl = await h.post('/push-templates', { token: t.owner.accessToken, body: { projectId: t.project.id, name: unique('tpl'), ...template } });
      expect(tpl.status).toBe(201);
      return { ...t, providers, templateId: tpl.body.id as string };
    },

    async registerDevices(apiKey: string, devices: { userId: string; deviceToken: string; platform?: string }[]) {
      for (const d of devices) {
        const res = await h.post('/push/register-device', { apiKey, body: { provider: 'fcm', platform: 'android', ...d } });
        expect([200, 201]).toContain(res.status);
      }
    },

    /** Polls the notification until it is no longer scheduled, queued or processing. */
    async waitForNotification(apiKey: string, notificationId: string, timeoutMs = 30_000) {
      let status: string | undefined;
      return waitUntil(
        async () => {
          const res = await h.get(`/push/notifications/${notificationId}`, { apiKey });
          status = res.body?.status;
          return res.status === 200 && !['scheduled', 'queued', 'processing'].includes(res.body.status) && res.body;
        },
        timeoutMs,
        () => `notification ${notificationId} to end (still ${status}); worker output:\n${workers.map((w) => w.output.join('')).join('\n')}`,
        100,
      );
    },

    async close() {
      await Promise.all([...workers, ...apiProcesses].map((w) => w.stop('SIGTERM')));
      await h.close();
      await emulator.close();
      await database?.drop();
    },
  };
  return p;
}

export type Pipeline = Awaited<ReturnType<typeof startPipeline>>;

/** A migrated database of its own on the run's server, dropped by `drop()`. */
export async function privateDatabase() {
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${url.pathname.slice(1)}_${unique('own').replace('-', '_')}`;
  await ensureDatabase(url.toString());
  await migrate(url.toString());
  return { url: url.toString(), drop: () => dropDatabase(url.toString()) };
}
