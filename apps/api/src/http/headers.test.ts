import { startApi, type Harness } from '@herald/testing';

/** Security headers (helmet) on every answer, and CORS only for the configured dashboard origins. */
let h: Harness;
beforeAll(async () => {
  h = await startApi({ CORS_ORIGINS: 'https://dashboard.example.com, https://admin.example.com' });
});
afterAll(() => h.close());

it('sets security headers and no X-Powered-By, on successes and errors alike', async () => {
  for (const res of [await h.get('/health'), await h.get('/nope'), await h.get('/auth/me')]) {
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(res.headers.get('strict-transport-security')).toMatch(/max-age=\d+/);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(res.headers.get('x-powered-by')).toBeNull();
  }
});

it('answers CORS preflights for allowed origins only', async () => {
  const preflight = (origin: string) =>
    h.request('OPTIONS', '/push/send', { headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-api-key' } });
  const allowed = await preflight('https://dashboard.example.com');
  expect(allowed.status).toBe(204);
  expect(allowed.headers.get('access-control-allow-origin')).toBe('https://dashboard.example.com');
  expect(allowed.headers.get('access-control-allow-methods')).toContain('POST');
  const other = await preflight('https://evil.example.com');
  expect(other.headers.get('access-control-allow-origin')).toBeNull();
  const simple = await h.get('/health', { headers: { origin: 'https://admin.example.com' } });
  expect(simple.headers.get('access-control-allow-origin')).toBe('https://admin.example.com');
  expect(simple.headers.get('access-control-expose-headers')).toContain('X-Request-Id');
});

it('without CORS_ORIGINS, no origin is allowed', async () => {
  const closed = await startApi();
  try {
    const res = await closed.get('/health', { headers: { origin: 'https://dashboard.example.com' } });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  } finally {
    await closed.close();
  }
});
