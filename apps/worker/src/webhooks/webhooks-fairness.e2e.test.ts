import { startPipeline, startReceiver, unique, type Pipeline, type Receiver } from '@herald/testing';

/**
 * One project's slow receivers do not hold up another project's webhooks. The attack: 20 endpoints
 * pointed at a receiver that never answers, test events fired at each — with one FIFO queue and a
 * few requests per worker, every request slot hung for the whole timeout and other projects' events
 * waited behind the flood. Each project now has at most WEBHOOK_PROJECT_CONCURRENCY requests in
 * flight; its other attempts wait their turn. Here: 4 request slots per worker, 2 per project, a
 * 5 s timeout; the test route's limit is raised so the attacker can flood as in the report.
 */
const TIMEOUT_MS = 5000;
const PER_PROJECT = 2;
let p: Pipeline;
let r: Receiver;
beforeAll(async () => {
  r = await startReceiver();
  p = await startPipeline(
    { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_CONCURRENCY: '4', WEBHOOK_PROJECT_CONCURRENCY: String(PER_PROJECT), WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS) },
    { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_HTTP_HOSTS: '127.0.0.1', RATE_LIMIT_WEBHOOK_TEST: '1000' },
  );
  await p.startWorker();
}, 60_000);
afterAll(async () => {
  await p.close();
  await r.close();
});

it("a victim's webhook arrives on time while another project floods the queue with requests that hang", async () => {
  const attacker = await p.project();
  const hang = unique('hang');
  const endpoints: string[] = [];
  for (let i = 0; i < 20; i++) {
    const path = `/${hang}-${i}`;
    r.on(path, () => 'hang');
    const res = await p.h.post(`/projects/${attacker.project.id}/webhooks`, { token: attacker.owner.accessToken, body: { url: r.url(path), events: ['notification.completed'] } });
    expect(res.status).toBe(201);
    endpoints.push(res.body.id);
  }
  for (let round = 0; round < 3; round++) {
    for (const id of endpoints) expect((await p.h.post(`/projects/${attacker.project.id}/webhooks/${id}/test`, { token: attacker.owner.accessToken })).status).toBe(202);
  }
  const hung = () => r.received.filter((req) => req.path.startsWith(`/${hang}-`));
  // The flood has taken its share of requests.
  await r.waitFor(`/${hang}-0`, 1, 10_000).catch(() => undefined);

  const victim = await p.project();
  const path = `/${unique('victim')}`;
  const created = await p.h.post(`/projects/${victim.project.id}/webhooks`, { token: victim.owner.accessToken, body: { url: r.url(path), events: ['notification.completed'] } });
  // The flood is still queued when the victim's event comes.
  const backlog = await p.h.db.webhookDelivery.count({ where: { endpoint: { projectId: attacker.project.id }, status: 'pending', attempts: 0 } });
  expect(backlog).toBeGreaterThan(30);
  const firedAt = Date.now();
  expect((await p.h.post(`/projects/${victim.project.id}/webhooks/${created.body.id}/test`, { token: victim.owner.accessToken })).status).toBe(202);
  const [arrived] = await r.waitFor(path, 1, 4 * TIMEOUT_MS);

  // On time: sooner than one hung request takes to time out (without the share, the victim waited
  // for the backlog to time out four at a time: over 30 × 5 s / 4).
  expect(arrived.at - firedAt).toBeLessThan(TIMEOUT_MS);
  // The attacker never had more than its share in flight: a hung request lasts TIMEOUT_MS, so those
  // received in the TIMEOUT_MS before the victim's arrival were all in flight together.
  expect(hung().filter((req) => req.at <= arrived.at && req.at > arrived.at - TIMEOUT_MS).length).toBeLessThanOrEqual(PER_PROJECT);
}, 90_000);
