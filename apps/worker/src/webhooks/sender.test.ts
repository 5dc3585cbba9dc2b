import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseRetryAfter, postWebhook, MAX_RESPONSE_BYTES } from './sender';

/** A real HTTP server on an ephemeral port; `handle` answers, `requests` records what came in. */
async function receiver(handle: (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void) {
  const requests: { url: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      requests.push({ url: req.url ?? '', headers: req.headers, body });
      handle(req, res, body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    requests,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

const open = { timeoutMs: 5000, allowPrivate: true };

describe('postWebhook', () => {
  it('POSTs the body with its headers and reports the answer', async () => {
    const r = await receiver((_req, res) => res.writeHead(202, { 'retry-after': '7' }).end('thanks'));
    try {
      const out = await postWebhook(`http://127.0.0.1:${r.port}/in?x=1`, '{"a":1}', { 'webhook-id': 'abc' }, open);
      expect(out).toEqual({ kind: 'response', status: 202, durationMs: expect.any(Number), body: 'thanks', retryAfterMs: 7000 });
      expect(r.requests).toEqual([{ url: '/in?x=1', headers: expect.objectContaining({ 'webhook-id': 'abc', 'content-type': 'application/json', 'user-agent': 'Herald-Webhooks/1' }), body: '{"a":1}' }]);
    } finally {
      await r.close();
    }
  });

  it('reads at most 64 KB of an answer', async () => {
    const r = await receiver((_req, res) => {
      res.writeHead(500);
      res.end(Buffer.alloc(4 * 1024 * 1024, 'x'));
    });
    try {
      const out = await postWebhook(`http://127.0.0.1:${r.port}/`, '{}', {}, open);
      expect(out.kind).toBe('response');
      if (out.kind === 'response') {
        expect(out.status).toBe(500);
        expect(out.body.length).toBe(MAX_RESPONSE_BYTES);
      }
    } finally {
      await r.close();
    }
  });

  it('never follows a redirect', async () => {
    const target = await receiver((_req, res) => res.end('ok'));
    const r = await receiver((_req, res) => res.writeHead(307, { location: `http://127.0.0.1:${target.port}/elsewhere` }).end());
    try {
      const out = await postWebhook(`http://127.0.0.1:${r.port}/`, '{}', {}, open);
      expect(out).toMatchObject({ kind: 'response', status: 307 });
      expect(target.requests).toEqual([]);
    } finally {
      await Promise.all([r.close(), target.close()]);
    }
  });

  it('gives up after the timeout when the receiver does not answer', async () => {
    const r = await receiver(() => undefined);
    try {
      const out = await postWebhook(`http://127.0.0.1:${r.port}/`, '{}', {}, { ...open, timeoutMs: 300 });
      expect(out).toMatchObject({ kind: 'timeout', error: 'No complete answer within 300 ms' });
    } finally {
      await r.close();
    }
  });

  it('names no address or host in an error: an unknown name, a refused connection, a name resolving inside', async () => {
    const guarded = { timeoutMs: 5000, allowPrivate: false };
    const outcomes = [
      await postWebhook('https://no-such-host.invalid/hook', '{}', {}, guarded),
      await postWebhook('http://localhost:9/hook', '{}', {}, guarded),
      await postWebhook('http://[::7f00:1]:9/hook', '{}', {}, guarded),
      await postWebhook('http://127.0.0.1:9/hook', '{}', {}, open),
    ];
    expect(outcomes.map((o) => ('error' in o ? o.error : o.kind))).toEqual([
      'The host name could not be resolved',
      'Refused: the host is, or resolves to, a loopback, private, link-local or metadata address',
      'Refused: the host is, or resolves to, a loopback, private, link-local or metadata address',
      'The connection was refused',
    ]);
    for (const o of outcomes) expect(JSON.stringify('error' in o ? o.error : '')).not.toMatch(/127\.0\.0\.1|::1|7f00|localhost|invalid|ENOTFOUND|getaddrinfo/);
  });

  it('reports a receiver that is down as a network error', async () => {
    const r = await receiver(() => undefined);
    await r.close();
    const out = await postWebhook(`http://127.0.0.1:${r.port}/`, '{}', {}, open);
    expect(out).toMatchObject({ kind: 'network', error: 'The connection was refused', code: 'ECONNREFUSED' });
  });

  it('refuses loopback and private addresses, literal or resolved, unless allowed', async () => {
    const r = await receiver((_req, res) => res.end('ok'));
    try {
      const guarded = { timeoutMs: 5000, allowPrivate: false };
      for (const url of [`http://127.0.0.1:${r.port}/`, `http://localhost:${r.port}/`, `http://[::ffff:127.0.0.1]:${r.port}/`, 'http://10.0.0.1:9/', 'http://169.254.169.254/latest/meta-data/']) {
        const out = await postWebhook(url, '{}', {}, guarded);
        expect([url, out]).toEqual([url, { kind: 'refused', durationMs: expect.any(Number), error: 'Refused: the host is, or resolves to, a loopback, private, link-local or metadata address' }]);
      }
      expect(r.requests).toEqual([]);
      expect(await postWebhook(`http://localhost:${r.port}/`, '{}', {}, open)).toMatchObject({ kind: 'response', status: 200 });
      expect(r.requests).toHaveLength(1);
    } finally {
      await r.close();
    }
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates', () => {
    const now = Date.parse('2026-11-23T12:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Mon, 23 Nov 2026 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});
