import { STATUS_CODES } from 'node:http';
import { createApiKey } from './fixtures';
import { unique, type ApiResponse } from './harness';
import { startPipeline, type ApiProcess, type Pipeline, type WorkerProcess } from './pipeline';
import { waitUntil } from './wait';

/**
 * Herald as it runs in production: TWO API processes (behind an imaginary load balancer: requests
 * alternate between them) and TWO worker processes, against one Postgres and one Redis (the test
 * run's, under a queue prefix of their own), delivering to the FCM emulator. Rate limits and API-key
 * state are shared, every notification is delivered exactly once, and a worker killed mid-load
 * loses nothing.
 */
jest.setTimeout(120_000);

const SEND_LIMIT = 10;
/** Small batches and two jobs per worker: what a killed worker had in flight is bounded. */
const BATCH = 50;
const CONCURRENCY = 2;

let p: Pipeline;
let apis: ApiProcess[] = [];
let workers: WorkerProcess[] = [];

beforeAll(async () => {
  p = await startPipeline({ DELIVERY_BATCH_SIZE: String(BATCH), WORKER_CONCURRENCY: String(CONCURRENCY) });
  const apiEnv = { RATE_LIMIT_SEND: String(SEND_LIMIT), LOG_LEVEL: 'warn' };
  [apis, workers] = await Promise.all([Promise.all([p.startApi(apiEnv), p.startApi(apiEnv)]), Promise.all([p.startWorker(), p.startWorker()])]);
}, 90_000);

// Stops the APIs and workers too, also those of a beforeAll that failed half-way.
afterAll(() => p?.close());

/** Request i goes to API i mod 2, as a round-robin load balancer would send it. */
const lb = (i: number) => apis[i % apis.length];

function expect429(res: ApiResponse) {
  expect({ status: res.status, body: res.body }).toEqual({ status: 429, body: { statusCode: 429, message: expect.any(String), error: STATUS_CODES[429] } });
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(res.headers.get('ratelimit-policy')).toBeTruthy();
}

async function seedDevices(projectId: string, users: string[], perUser: number, tokenPrefix = '') {
  const devices = users.flatMap((userId) => Array.from({ length: perUser }, (_, d) => ({ userId, deviceToken: `${tokenPrefix}${userId}-d${d}` })));
  await p.h.db.device.createMany({ data: devices.map((d) => ({ projectId, provider: 'fcm', platform: 'android', ...d })) });
  return devices.map((d) => d.deviceToken);
}

/** Until every notification is final; then Herald's records must show one `sent` row per device. */
async function expectAllSent(notificationIds: string[], tokens: string[], timeoutMs: number) {
  await waitUntil(
    async () => (await p.h.db.notification.count({ where: { id: { in: notificationIds }, status: { in: ['queued', 'processing'] } } })) === 0,
    timeoutMs,
    `${notificationIds.length} notifications to complete; workers:\n${workers.map((w) => w.output.slice(-20).join('')).join('\n')}`,
    200,
  );
  const statuses = await p.h.db.notification.groupBy({ by: ['status'], where: { id: { in: notificationIds } }, _count: true });
  expect(statuses.map((s) => [s.status, s._count])).toEqual([['completed', notificationIds.length]]);
  const rows = await p.h.db.delivery.groupBy({ by: ['deviceId', 'status'], where: { notificationId: { in: notificationIds } }, _count: true });
  expect(rows.every((r) => r.status === 'sent' && r._count === 1)).toBe(true);
  expect(rows).toHaveLength(tokens.length);
  // Every device reached FCM.
  const seen = new Set(p.emulator.received().map((m) => m.token));
  expect(tokens.filter((t) => !seen.has(t))).toEqual([]);
}

/** How often FCM received each of these tokens. */
function receivedCounts(tokens: string[]) {
  const wanted = new Set(tokens);
  const counts = new Map<string, number>();
  for (const m of p.emulator.received()) if (m.token && wanted.has(m.token)) counts.set(m.token, (counts.get(m.token) ?? 0) + 1);
  return counts;
}

/**
 * The mixed load: 30 single sends (to users with 2 devices each; 10 per API key, as the send limit
 * is 10 a minute per key) and 5 bulks of 100 users × 2 devices, alternating between the two APIs.
 */
async function mixedLoad(tokenPrefix = '') {
  const t = await p.project();
  const keys = [t.apiKey.key, (await createApiKey(p.h, t.project.id)).key, (await createApiKey(p.h, t.project.id)).key];
  const singles = Array.from({ length: 30 }, () => unique('single'));
  const bulks = Array.from({ length: 5 }, () => Array.from({ length: 100 }, () => unique('bulk')));
  const tokens = [...(await seedDevices(t.project.id, singles, 2, tokenPrefix)), ...(await seedDevices(t.project.id, bulks.flat(), 2, tokenPrefix))];
  const variables = { name: 'Ada', count: 2 };
  const requests = [
    ...singles.map((userId, i) => () => lb(i).post('/push/send', { apiKey: keys[i % keys.length], body: { userId, templateId: t.templateId, variables } })),
    ...bulks.map((userIds, i) => () => lb(i + 1).post('/push/send-bulk', { apiKey: keys[i % keys.length], body: { userIds, templateId: t.templateId, variables } })),
  ];
  return { t, tokens, requests };
}

async function accept(requests: (() => Promise<ApiResponse>)[]) {
  const responses = await Promise.all(requests.map((r) => r()));
  expect(responses.map((r) => r.status)).toEqual(requests.map(() => 202));
  return responses.map((r) => r.body.notificationId as string);
}

describe('two APIs, two workers, one Postgres and one Redis', () => {
  it('rate limits are shared: 10 sends a minute per key in total, the 11th is refused wherever it lands', async () => {
    const t = await p.project();
    const send = (i: number) => lb(i).post('/push/send', { apiKey: t.apiKey.key, body: { userId: unique('rl'), templateId: t.templateId, variables: { name: 'x', count: 1 } } });
    const accepted = await Promise.all(Array.from({ length: SEND_LIMIT }, (_, i) => send(i)));
    expect(accepted.map((r) => r.status)).toEqual(Array(SEND_LIMIT).fill(202));
    expect429(await send(0));
    expect429(await send(1));
    // Another credential has its own budget, on both APIs.
    const other = await createApiKey(p.h, t.project.id);
    for (const api of apis) expect((await api.post('/push/send', { apiKey: other.key, body: { userId: 'u', templateId: t.templateId, variables: { name: 'x', count: 1 } } })).status).toBe(202);
  });

  it('a disabled API key is refused by both APIs at the very next request', async () => {
    const t = await p.project();
    const key = await createApiKey(p.h, t.project.id);
    for (const api of apis) expect((await api.get(`/projects/${t.project.id}`, { apiKey: key.key })).status).toBe(200);
    const disabled = await apis[0].patch(`/projects/${t.project.id}/api-keys/${key.id}`, { token: t.owner.accessToken, body: { enabled: false } });
    expect(disabled.status).toBe(200);
    expect(disabled.body.enabled).toBe(false);
    for (const api of [apis[1], apis[0]]) {
      const res = await api.get(`/projects/${t.project.id}`, { apiKey: key.key });
      expect({ status: res.status, body: res.body }).toEqual({ status: 401, body: { statusCode: 401, message: 'API key is disabled', error: 'Unauthorized' } });
    }
    const enabled = await apis[1].patch(`/projects/${t.project.id}/api-keys/${key.id}`, { token: t.owner.accessToken, body: { enabled: true } });
    expect(enabled.status).toBe(200);
    for (const api of apis) expect((await api.get(`/projects/${t.project.id}`, { apiKey: key.key })).status).toBe(200);
  });

  it('a mixed load through both APIs is delivered exactly once per device', async () => {
    const { tokens, requests } = await mixedLoad();
    const ids = await accept(requests);
    await expectAllSent(ids, tokens, 60_000);
    const counts = receivedCounts(tokens);
    expect(counts.size).toBe(tokens.length);
    expect([...counts.values()].every((c) => c === 1)).toBe(true);
  });

  it('SIGKILL of one worker mid-load loses nothing; only requests in flight reach FCM twice', async () => {
    // Slow at "FCM" (20 ms a message), so that the kill lands mid-load.
    const { tokens, requests } = await mixedLoad('slow20-');
    const ids = await accept(requests);
    await waitUntil(() => receivedCounts(tokens).size >= 200, 30_000, 'deliveries to start');
    const victim = workers[0];
    await victim.stop('SIGKILL');
    expect(victim.child.signalCode).toBe('SIGKILL');
    // The requests in flight at the kill: FCM had them, and their answer was not written yet. (Read
    // before the dead worker's claims lapse, after which the survivor sends those rows again.)
    const receivedAtKill = new Set(receivedCounts(tokens).keys());
    const pendingAtKill = await p.h.db.delivery.findMany({ where: { notificationId: { in: ids }, status: 'pending' }, select: { deviceId: true } });
    const pendingTokens = new Set((await p.h.db.device.findMany({ where: { id: { in: pendingAtKill.map((d) => d.deviceId!) } }, select: { deviceToken: true } })).map((d) => d.deviceToken));
    const inFlightAtKill = [...receivedAtKill].filter((t) => pendingTokens.has(t));
    const sentAtKill = await p.h.db.delivery.count({ where: { notificationId: { in: ids }, status: 'sent' } });
    expect(sentAtKill).toBeLessThan(tokens.length);

    // The surviving worker takes the dead one's jobs over once their locks expire.
    await expectAllSent(ids, tokens, 90_000);
    const counts = receivedCounts(tokens);
    expect(counts.size).toBe(tokens.length);
    expect([...counts.values()].every((c) => c <= 2)).toBe(true);
    // Those, and only those, may have reached FCM twice. (How many depends on the moment: a worker
    // has up to its HTTP/2 streams in flight, from any of the jobs and shared jobs it runs.)
    const repeated = [...counts].filter(([, c]) => c > 1).map(([token]) => token);
    expect(repeated.filter((t) => !inFlightAtKill.includes(t))).toEqual([]);
  });
});
