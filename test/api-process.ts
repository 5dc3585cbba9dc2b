import { spawn } from 'node:child_process';
import path from 'node:path';
import { httpRequest, testEnv, type ApiResponse, type RequestOptions } from './harness';
import { freePort, waitUntil } from './services';

const API_ENTRY = path.join(__dirname, '../apps/api/dist/main.js');

/**
 * The API as its own OS process (the built code, `node apps/api/dist/main.js`), as one of several
 * containers behind a load balancer. Requests go over real sockets; its log is kept for diagnostics.
 */
export async function spawnApi(env: Record<string, string>) {
  const port = await freePort();
  const child = spawn(process.execPath, [API_ENTRY], { env: testEnv({ PORT: String(port), ...env }) as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  const collect = (chunk: Buffer) => {
    output.push(chunk.toString());
    if (output.length > 2000) output.splice(0, 1000);
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const url = `http://127.0.0.1:${port}`;

  const request = <T = any>(method: string, route: string, opts: RequestOptions = {}): Promise<ApiResponse<T>> => httpRequest<T>(url, method, route, opts);

  const api = {
    url,
    child,
    output,
    request,
    get: <T = any>(route: string, opts?: RequestOptions) => request<T>('GET', route, opts),
    post: <T = any>(route: string, opts?: RequestOptions) => request<T>('POST', route, opts),
    patch: <T = any>(route: string, opts?: RequestOptions) => request<T>('PATCH', route, opts),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
  try {
    await waitUntil(
      async () => {
        if (child.exitCode !== null) throw new Error('exited');
        return (await fetch(`${url}/health`)).status === 200;
      },
      20_000,
      `the API process on port ${port}`,
      100,
    );
  } catch (err) {
    await api.stop();
    throw new Error(`${(err as Error).message}\n${output.join('')}`);
  }
  return api;
}

export type ApiProcess = Awaited<ReturnType<typeof spawnApi>>;
