import { startPipeline, unique, type Pipeline } from '@herald/testing';

/**
 * The worker's warm-up (tuning/warm-up.ts) as its process runs it: a worker that starts with
 * nothing to do warms up (delivery.e2e checks that); one started into a backlog delivers at once and
 * never warms up, its jobs warming it instead.
 */
let p: Pipeline;
beforeAll(async () => {
  p = await startPipeline();
}, 60_000);
afterAll(() => p.close());

it('a worker started into a backlog delivers it and does not warm up', async () => {
  const t = await p.project();
  const prefix = unique('backlog');
  await p.registerDevices(
    t.apiKey.key,
    Array.from({ length: 20 }, (_, u) => ({ userId: `${prefix}-u${u}`, deviceToken: `${prefix}-t${u}` })),
  );
  // Accepted while no worker runs.
  const ids: string[] = [];
  for (let u = 0; u < 20; u++) {
    const res = await p.h.post('/push/send', { apiKey: t.apiKey.key, body: { userId: `${prefix}-u${u}`, templateId: t.templateId, variables: { name: 'a', count: u } } });
    expect(res.status).toBe(202);
    ids.push(res.body.notificationId);
  }

  // A short warm-up, so that one that started after the backlog would have logged within the wait below.
  const worker = await p.startWorker({ WORKER_WARM_UP_MESSAGES: '100' });
  for (const id of ids) expect((await p.waitForNotification(t.apiKey.key, id)).status).toBe('completed');
  // The queue is empty now (BullMQ says so with its `drained` event); a warm-up would start at once.
  await new Promise((r) => setTimeout(r, 1500));
  const lines = worker.output.join('').split('\n');
  expect(lines.filter((l) => l.includes('delivery warmed up'))).toEqual([]);
  expect(lines.some((l) => l.includes('Herald worker started'))).toBe(true);
});
