import { startApi, type Harness } from '@herald/testing';

/** Postgres or Redis unreachable → 503 within 5 s, and /ready names the one that is down. */
describe.each([
  ['postgres', { DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/herald' }],
  ['redis', { REDIS_URL: 'redis://127.0.0.1:1' }],
])('%s down', (name, env) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startApi(env);
  });
  afterAll(() => h.close());

  it('/health stays up and /ready says which dependency is down', async () => {
    expect((await h.get('/health')).status).toBe(200);
    const started = Date.now();
    const ready = await h.get('/ready');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ statusCode: 503, error: 'Service Unavailable', checks: { [name]: 'down' } });
    expect(ready.body.message).toContain(name);
  });

  it('a request that needs it answers 503 within 5 s', async () => {
    const started = Date.now();
    const res = await h.post('/auth/signin', { body: { email: 'someone@example.test', password: 'whatever1' } });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ statusCode: 503, message: expect.any(String), error: 'Service Unavailable' });
    expect(res.text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
  });
});

it('/ready is ok when both are up', async () => {
  const h = await startApi();
  try {
    const res = await h.get('/ready');
    expect(res.body).toEqual({ status: 'ok', checks: { postgres: 'up', redis: 'up' } });
  } finally {
    await h.close();
  }
});
