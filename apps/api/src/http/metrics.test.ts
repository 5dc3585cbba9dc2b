import { startApi, type Harness } from '@herald/testing';

let h: Harness;
beforeAll(async () => {
  h = await startApi();
});
afterAll(() => h.close());

it('/metrics counts requests by route pattern and status, never by raw URL', async () => {
  const u = await h.user();
  await h.get('/auth/me', { token: u.accessToken });
  await h.get('/push/devices/some-user-id', { token: u.accessToken, query: { projectId: '00000000-0000-4000-8000-000000000000' } });
  await h.get('/no/such/route');
  const res = await h.get('/metrics');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/text\/plain/);
  expect(res.text).toMatch(/herald_http_requests_total\{method="POST",route="\/auth\/signup",status="201"\} 1/);
  expect(res.text).toMatch(/herald_http_requests_total\{method="GET",route="\/auth\/me",status="200"\} 1/);
  expect(res.text).toMatch(/herald_http_requests_total\{method="GET",route="\/push\/devices\/:userId",status="404"\} 1/);
  expect(res.text).toMatch(/herald_http_requests_total\{method="GET",route="unmatched",status="404"\} 1/);
  expect(res.text).toMatch(/herald_http_request_duration_seconds_bucket\{le="0.05",method="GET",route="\/auth\/me",status="200"\}/);
  expect(res.text).not.toContain('some-user-id');
  expect(res.text).toContain('herald_api_process_cpu_seconds_total');
});

it('can be turned off', async () => {
  const off = await startApi({ METRICS_ENABLED: 'false' });
  try {
    expect((await off.get('/metrics')).status).toBe(404);
  } finally {
    await off.close();
  }
});

it('with METRICS_TOKEN, answers only its bearer (401 with the usual body otherwise)', async () => {
  const guarded = await startApi({ METRICS_TOKEN: 'api-scrape-token' });
  try {
    for (const token of [undefined, 'wrong']) {
      const res = await guarded.get('/metrics', { token });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ statusCode: 401, message: 'Missing or invalid metrics token', error: 'Unauthorized' });
    }
    const ok = await guarded.get('/metrics', { token: 'api-scrape-token' });
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('herald_http_requests_total');
  } finally {
    await guarded.close();
  }
});
