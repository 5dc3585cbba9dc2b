import { startApi, waitUntil, type Harness } from '@herald/testing';

/** The request log: ids echoed as X-Request-Id, one line per logged answer, bound to that id. */
let h: Harness;
beforeAll(async () => {
  h = await startApi({ LOG_LEVEL: 'info' });
});
afterAll(() => h.close());

const linesAbout = (id: string) => h.logLines.map((l) => JSON.parse(l)).filter((l) => l.reqId === id);

it('echoes a sane X-Request-Id and replaces any other with a UUID', async () => {
  expect((await h.get('/health', { headers: { 'x-request-id': 'lb-7f3a.9:2' } })).headers.get('x-request-id')).toBe('lb-7f3a.9:2');
  for (const sent of ['has space', 'x'.repeat(129), '']) {
    const res = await h.get('/health', { headers: { 'x-request-id': sent } });
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  }
});

it('writes one line for a 4xx, at info, bound to the request id; none for a 2xx at the default level, nor for probes', async () => {
  const refused = await h.get('/auth/me', { token: 'not-a-real-token-3f9c', headers: { 'x-request-id': 'refused-1' } });
  expect(refused.status).toBe(401);
  await h.get('/health', { headers: { 'x-request-id': 'probe-1' } });
  const u = await h.user();
  await h.get('/auth/me', { token: u.accessToken, headers: { 'x-request-id': 'ok-1' } });

  await waitUntil(() => linesAbout('refused-1').length > 0, 2000, 'the log line of the refused request');
  const [line, ...more] = linesAbout('refused-1');
  expect(more).toHaveLength(0);
  expect(line).toMatchObject({ level: 30, msg: 'request completed', reqId: 'refused-1', res: { statusCode: 401 }, req: { method: 'GET', url: '/auth/me' } });
  expect(typeof line.responseTime).toBe('number');
  // The credential is never written.
  expect(line.req.headers.authorization).toBe('[redacted]');
  expect(JSON.stringify(line)).not.toContain('not-a-real-token-3f9c');
  expect(linesAbout('probe-1')).toHaveLength(0);
  expect(linesAbout('ok-1')).toHaveLength(0);
});
