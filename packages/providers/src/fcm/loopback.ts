import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';

/** A running loopback stand-in for FCM: `host` is what `FcmProvider`'s `emulatorHost` takes. */
export interface LoopbackFcm {
  /** `127.0.0.1:port` */
  readonly host: string;
  /** Send requests answered so far. */
  readonly answered: number;
  /** Ends its sessions and stops listening. */
  close(): Promise<void>;
}

/**
 * An HTTP/2 (h2c) server on a free loopback port that answers every request as FCM answers a message
 * it accepted: `200 {"name": "projects/{project}/messages/{n}"}`, once the body is read. It checks
 * nothing and keeps nothing. The worker warms its delivery code up against it (see the worker's
 * `warm-up.ts`): it is listening only while the warm-up runs, and on 127.0.0.1 only.
 */
export async function startLoopbackFcm(): Promise<LoopbackFcm> {
  let answered = 0;
  const sessions = new Set<http2.ServerHttp2Session>();
  const server = http2.createServer();
  server.on('session', (session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session)).on('error', () => undefined);
  });
  server.on('stream', (stream, headers) => {
    stream.on('error', () => undefined);
    stream.resume();
    stream.on('end', () => {
      const project = /^\/v1\/projects\/([^/]+)\//.exec(String(headers[':path']))?.[1] ?? 'unknown';
      stream.respond({ ':status': 200, 'content-type': 'application/json; charset=UTF-8' });
      stream.end(`{"name":"projects/${project}/messages/${++answered}"}`);
    });
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    host: `127.0.0.1:${port}`,
    get answered() {
      return answered;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const session of sessions) session.close();
        server.close(() => resolve());
      }),
  };
}
