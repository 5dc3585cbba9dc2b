import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { Http2Client, TransportError } from './http2-client';
import { silentLogger } from './logger';

type Handler = (stream: http2.ServerHttp2Stream, n: number) => void;

/** A bare h2c server whose streams are answered by `handler`; counts sessions and peak concurrency. */
async function server(handler: Handler, settings: http2.Settings = {}) {
  const s = http2.createServer({ settings });
  const stats = { sessions: 0, streams: 0, active: 0, peak: 0 };
  s.on('session', () => stats.sessions++);
  s.on('stream', (stream) => {
    stats.active++;
    stats.peak = Math.max(stats.peak, stats.active);
    stream.on('close', () => stats.active--);
    stream.on('error', () => {});
    stream.resume();
    stream.on('end', () => handler(stream, ++stats.streams));
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  const close = () => new Promise<void>((r) => s.close(() => r()));
  return { origin, stats, close, server: s };
}

const POST = { ':method': 'POST', ':path': '/x' };

const ok: Handler = (stream) => {
  stream.respond({ ':status': 200 });
  stream.end('{}');
};

describe('Http2Client', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  const setup = async (handler: Handler, options: { maxConcurrentStreams?: number; timeoutMs?: number } = {}, settings?: http2.Settings) => {
    const srv = await server(handler, settings);
    const client = new Http2Client({ origin: srv.origin, maxConcurrentStreams: options.maxConcurrentStreams ?? 10, timeoutMs: options.timeoutMs ?? 2000, logger: silentLogger });
    cleanups.push(srv.close, () => client.close());
    return { srv, client };
  };

  it('sends a stream the server refused once more, and only once', async () => {
    const { client } = await setup((stream, n) => (n === 1 || n >= 3 ? stream.close(http2.constants.NGHTTP2_REFUSED_STREAM) : ok(stream, n)));
    expect(await client.request(POST, '{}')).toMatchObject({ status: 200, body: '{}' });
    await expect(client.request(POST, '{}')).rejects.toEqual(new TransportError('FCM connection lost: Stream closed with error code NGHTTP2_REFUSED_STREAM', true));
  });

  it('keeps at most maxConcurrentStreams in flight', async () => {
    const { srv, client } = await setup((stream, n) => setTimeout(() => ok(stream, n), 5), { maxConcurrentStreams: 4 });
    await Promise.all(Array.from({ length: 40 }, () => client.request(POST, '')));
    expect(srv.stats).toMatchObject({ streams: 40, peak: 4, sessions: 1 });
  });

  it("honours the server's SETTINGS_MAX_CONCURRENT_STREAMS when lower", async () => {
    const { srv, client } = await setup((stream, n) => setTimeout(() => ok(stream, n), 5), { maxConcurrentStreams: 50 }, { maxConcurrentStreams: 3 });
    await client.request(POST, ''); // SETTINGS arrive with the first exchange
    await Promise.all(Array.from({ length: 30 }, () => client.request(POST, '')));
    expect(srv.stats.peak).toBe(3);
  });

  it('drops a session that answers nothing within the timeout', async () => {
    const { srv, client } = await setup((stream, n) => (n === 1 ? undefined : ok(stream, n)), { timeoutMs: 150 });
    await expect(client.request(POST, '')).rejects.toEqual(new TransportError('FCM request timed out after 150 ms'));
    expect((await client.request(POST, '')).status).toBe(200);
    expect(srv.stats.sessions).toBe(2);
  });

  it('a refused connection rejects with a TransportError', async () => {
    const { srv, client } = await setup(ok);
    await srv.close();
    await expect(client.request(POST, '')).rejects.toBeInstanceOf(TransportError);
  });
});
