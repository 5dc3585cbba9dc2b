import { connect } from 'node:net';
import { startApi, type Harness } from '@herald/testing';

/**
 * Hardening: a client that trickles its headers or its body held a connection for minutes (Node's
 * defaults). The API closes it after HTTP_HEADERS_TIMEOUT_MS / HTTP_REQUEST_TIMEOUT_MS with a 408 in
 * the usual error body. (The bounds are small here; nothing asserts how fast.)
 */
let h: Harness;
beforeAll(async () => {
  h = await startApi({ HTTP_HEADERS_TIMEOUT_MS: '1000', HTTP_REQUEST_TIMEOUT_MS: '2000' });
});
afterAll(() => h.close());

/** Writes `chunks` to a raw connection and reads until the server closes it. */
function trickle(first: string, keepSending?: string): Promise<string> {
  const { port } = new URL(h.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let received = '';
    let timer: NodeJS.Timeout | undefined;
    socket.on('connect', () => {
      socket.write(first);
      // A byte every 300 ms: the connection is never idle, the request never complete.
      if (keepSending) timer = setInterval(() => socket.writable && socket.write(keepSending), 300);
    });
    socket.on('data', (d) => (received += d.toString()));
    socket.on('error', reject);
    socket.on('close', () => {
      clearInterval(timer);
      resolve(received);
    });
  });
}

it('headers that never finish: 408 and the connection closed', async () => {
  const answer = await trickle('GET /health HTTP/1.1\r\nHost: x\r\n', 'X-Slow: 1\r\n');
  expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
  expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({ statusCode: 408, message: 'Request timeout', error: 'Request Timeout' });
}, 30_000);

it('a body that never finishes: 408 and the connection closed', async () => {
  const answer = await trickle('POST /auth/signin HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"email":', ' ');
  expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
}, 30_000);

it('an ordinary request is unaffected', async () => {
  expect((await h.get('/health')).status).toBe(200);
});
