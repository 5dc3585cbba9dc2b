/** Shared pieces of the benchmarks: child processes, the FCM emulator, the bare HTTP/2 ceiling, figures. */
import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http2 from 'node:http2';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path, { join } from 'node:path';
import { dropDatabase, ensureDatabase, migrate } from '../../packages/db/src/migrate';

export const ROOT = path.join(__dirname, '../..');

export interface ServiceAccount {
  projectId: string;
  clientEmail: string;
  privateKey: string;
}

export function serviceAccount(projectId = 'bench'): ServiceAccount {
  const { privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  return { projectId, clientEmail: `bench@${projectId}.iam.gserviceaccount.com`, privateKey };
}

export interface Child {
  process: ChildProcess;
  pid: number;
  output: string[];
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Every child a benchmark started: killed when it exits, however it exits (an orphaned worker would go on sweeping the next run's database). */
const children = new Set<ReturnType<typeof spawn>>();
process.on('exit', () => children.forEach((c) => c.kill('SIGKILL')));
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(1));

/** Starts `node <entry>` and resolves once a line of its output matches `ready`. */
export function startNode(entry: string, args: string[], env: Record<string, string | undefined>, ready: RegExp, execArgv: string[] = []): Promise<Child & { match: RegExpExecArray }> {
  const child = spawn(process.execPath, [...execArgv, entry, ...args], { env: { ...process.env, ...env } as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  const output: string[] = [];
  return new Promise((resolve, reject) => {
    let buffer = '';
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      output.push(text);
      buffer += text;
      const match = ready.exec(buffer);
      if (match) {
        buffer = '';
        resolve({
          process: child,
          pid: child.pid!,
          output,
          match,
          stop: (signal = 'SIGTERM') =>
            new Promise<void>((r) => {
              if (child.exitCode !== null) return r();
              child.once('exit', () => r());
              child.kill(signal);
            }),
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${entry} exited with ${code}:\n${output.join('')}`)));
  });
}

/** The FCM emulator in a child process (the built CLI), trusting `account`. */
export async function startEmulator(account: ServiceAccount, maxRecords: number) {
  const dir = mkdtempSync(join(tmpdir(), 'herald-bench-'));
  const file = join(dir, 'service-account.json');
  writeFileSync(file, JSON.stringify({ project_id: account.projectId, client_email: account.clientEmail, private_key: account.privateKey }));
  const child = await startNode(join(ROOT, 'packages/fcm-emulator/dist/cli.js'), ['--port', '0', '--service-account', file, '--max-records', String(maxRecords)], {}, /FCM_EMULATOR_HOST=([^\s)]+)/);
  rmSync(dir, { recursive: true });
  const host = child.match[1];
  const origin = `http://${host}`;
  return {
    ...child,
    host,
    origin,
    async stats(): Promise<{ accepted: number; sendRequests: number }> {
      // Asked every second or so: a kept-alive connection the emulator closes meanwhile is asked again.
      for (let attempt = 1; ; attempt++) {
        try {
          return (await (await fetch(`${origin}/_emulator/stats`)).json()) as { accepted: number; sendRequests: number };
        } catch (err) {
          if (attempt >= 3) throw err;
        }
      }
    },
    async clear() {
      await fetch(`${origin}/_emulator/reset`, { method: 'POST' });
    },
  };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface BareMessage {
  token: string;
  title: string;
  body: string;
  data?: Record<string, string>;
}

/** One HTTP/2 session, `concurrency` loops each awaiting its own request: the least work a client can do. */
export async function bareLoop(origin: string, fcmProject: string, accessToken: string, messages: BareMessage[], concurrency: number): Promise<number> {
  const session = http2.connect(origin, { peerMaxConcurrentStreams: concurrency });
  await new Promise<void>((resolve, reject) => session.once('connect', () => resolve()).once('error', reject));
  const headers = { ':method': 'POST', ':path': `/v1/projects/${fcmProject}/messages:send`, authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' };
  let next = 0;
  let sent = 0;
  const loop = async () => {
    while (next < messages.length) {
      const m = messages[next++];
      const body = JSON.stringify({ message: { token: m.token, notification: { title: m.title, body: m.body }, data: m.data } });
      const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const stream = session.request(headers);
        let status = 0;
        let data = '';
        stream.on('response', (h) => (status = Number(h[':status'])));
        stream.setEncoding('utf8');
        stream.on('data', (chunk: string) => (data += chunk));
        stream.on('end', () => resolve({ status, body: data }));
        stream.on('error', reject);
        stream.end(body);
      });
      if (res.status === 200 && typeof JSON.parse(res.body).name === 'string') sent++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  await new Promise<void>((resolve) => session.close(() => resolve()));
  return sent;
}

/** An access token by the JWT-bearer grant, as the client obtains one. */
export async function mintAccessToken(origin: string, account: ServiceAccount): Promise<string> {
  const iat = Math.floor(Date.now() / 1000);
  const enc = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const claims = { iss: account.clientEmail, scope: 'https://www.googleapis.com/auth/firebase.messaging', aud: 'https://oauth2.googleapis.com/token', iat, exp: iat + 3600 };
  const input = `${enc({ alg: 'RS256', typ: 'JWT' })}.${enc(claims)}`;
  const assertion = `${input}.${sign('RSA-SHA256', Buffer.from(input), account.privateKey).toString('base64url')}`;
  const res = await fetch(`${origin}/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }) });
  const body = (await res.json()) as { access_token?: string };
  if (!body.access_token) throw new Error(`No access token: ${JSON.stringify(body)}`);
  return body.access_token;
}

/** Resident set size of a process, in MiB (Linux). */
export function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/**
 * utime + stime of a process, in ms (Linux, USER_HZ = 100). With `exitedChildren`, plus the CPU of
 * its children that have exited (cutime + cstime), so that a PostgreSQL backend closing during a
 * measurement moves its time to the postmaster instead of taking it out of the sum.
 */
export function cpuMs(pid: number, { exitedChildren = false } = {}): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]) + (exitedChildren ? Number(fields[13]) + Number(fields[14]) : 0);
  return (ticks * 1000) / 100;
}

/** A JSON request against the API that throws unless the status is expected. */
export async function api<T = any>(base: string, method: string, path: string, opts: { body?: unknown; token?: string; apiKey?: string; expect?: number } = {}): Promise<T> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.apiKey) headers['x-api-key'] = opts.apiKey;
  const res = await fetch(base + path, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await res.text();
  if (opts.expect !== undefined && res.status !== opts.expect) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/**
 * A tenant ready to send through the API: account, project, API key, push config, one FCM provider
 * and a template with two variables.
 */
export async function setupTenant(base: string, account: ServiceAccount) {
  const email = `bench-${randomBytes(4).toString('hex')}@example.test`;
  await api(base, 'POST', '/auth/signup', { body: { email, password: 'benchmark-password', firstName: 'Bench', lastName: 'Mark' }, expect: 201 });
  const { accessToken: token } = await api(base, 'POST', '/auth/signin', { body: { email, password: 'benchmark-password' }, expect: 200 });
  const project = await api(base, 'POST', '/projects', { token, body: { name: 'bench' }, expect: 201 });
  const { key } = await api(base, 'POST', `/projects/${project.id}/api-keys`, { token, body: { name: 'bench' }, expect: 201 });
  await api(base, 'POST', `/push-config?projectId=${project.id}`, { token, body: {}, expect: 201 });
  await api(base, 'POST', `/push-config/providers?projectId=${project.id}`, {
    token,
    body: { provider: 'fcm', name: 'bench', priority: 1, config: { projectId: account.projectId, clientEmail: account.clientEmail, privateKey: account.privateKey } },
    expect: 201,
  });
  const template = await api(base, 'POST', '/push-templates', {
    token,
    body: { projectId: project.id, name: 'order-shipped', title: 'Your order {{order}} has shipped', body: 'Hi {{name}}, it should arrive on Thursday.', data: { kind: 'order.shipped' } },
    expect: 201,
  });
  return { token, projectId: project.id as string, apiKey: key as string, templateId: template.id as string };
}

export const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
export const pct = (r: number) => `${(r * 100).toFixed(1)} %`;
export const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** CPU ms of every process whose command name is `name` (e.g. all PostgreSQL backends, those already gone included), Linux only. */
export function cpuMsByName(name: string): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== name) continue;
      total += cpuMs(Number(entry), { exitedChildren: true });
    } catch {
      // the process ended meanwhile
    }
  }
  return total;
}

/**
 * Steal time of the whole machine, in ms of CPU summed over its cores (Linux, /proc/stat): time the
 * hypervisor ran something else while this VM wanted its vCPUs. A run with a large share of it says
 * more about the host than about Herald.
 */
export function stealMs(): number {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  return (Number(fields[8] ?? 0) * 1000) / 100;
}

/** A fresh, migrated database named `name` on DATABASE_URL's server; returns its URL. */
export async function freshDatabase(name: string): Promise<string> {
  const url = new URL(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres');
  url.pathname = `/${name}`;
  await dropDatabase(url.toString());
  await ensureDatabase(url.toString());
  await migrate(url.toString());
  return url.toString();
}
