import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitUntil } from './wait';

export interface ReceivedWebhook {
  path: string;
  headers: Record<string, string>;
  /** The raw body, exactly as sent (what a signature covers). */
  body: string;
  /** When it came in (ms). */
  at: number;
}

/** How a path answers its nth request (1-based): a status, or `hang` (never answers). */
export type Answer = { status: number; headers?: Record<string, string>; body?: string | Buffer } | 'hang';
type Handler = (n: number, req: ReceivedWebhook) => Answer;

/**
 * A customer's webhook receiver: a real node HTTP server on 127.0.0.1 that records every request and
 * answers as each path is told to (200 by default). It can be stopped and started again on the same
 * port, to play a receiver that is down for a while.
 */
export async function startReceiver() {
  const received: ReceivedWebhook[] = [];
  const handlers = new Map<string, Handler>();
  const counts = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0];
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]));
      const r: ReceivedWebhook = { path, headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      received.push(r);
      const n = (counts.get(path) ?? 0) + 1;
      counts.set(path, n);
      const answer: Answer = (handlers.get(path) ?? (() => ({ status: 200 })))(n, r);
      if (answer === 'hang') return;
      res.writeHead(answer.status, answer.headers).end(answer.body ?? '');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;

  const receiver = {
    port,
    received,
    url: (path: string, host = '127.0.0.1') => `http://${host}:${port}${path}`,
    /** Sets how `path` answers. */
    on(path: string, handler: Handler) {
      handlers.set(path, handler);
    },
    at: (path: string) => received.filter((r) => r.path === path),
    /** Waits until `path` has received `count` requests. */
    async waitFor(path: string, count: number, timeoutMs = 20_000): Promise<ReceivedWebhook[]> {
      await waitUntil(() => receiver.at(path).length >= count, timeoutMs, () => `${count} requests to ${path} (received ${receiver.at(path).length})`);
      return receiver.at(path);
    },
    /** Down: connections are refused until `start`. */
    stop(): Promise<void> {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
    start(): Promise<void> {
      return new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
    },
    close(): Promise<void> {
      return server.listening ? receiver.stop() : Promise.resolve();
    },
  };
  return receiver;
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
