import { startPipeline, unique, type Pipeline } from '@herald/testing';

/**
 * FCM_RATE_PER_MINUTE and FCM_RATE_BURST: a token bucket per project in Redis; what exceeds it waits
 * as delayed work. (The default burst, a minute's worth, is the limiter's own test.)
 */
let p: Pipeline;
beforeAll(async () => {
  p = await startPipeline({ FCM_RATE_PER_MINUTE: '6000', FCM_RATE_BURST: '100' }); // 100 messages a second, bursts of 100
  await p.startWorker();
}, 60_000);
afterAll(() => p.close());

it('a project never sends faster than its rate, and everything throttled is delivered once', async () => {
  const t = await p.project();
  const prefix = unique('rate');
  const devices = Array.from({ length: 300 }, (_, i) => ({ projectId: t.project.id, userId: `${prefix}-u${i}`, deviceToken: `${prefix}-t${i}`, provider: 'fcm', platform: 'android' }));
  await p.h.db.device.createMany({ data: devices });
  const res = await p.h.post('/push/send-bulk', { apiKey: t.apiKey.key, body: { userIds: devices.map((d) => d.userId), templateId: t.templateId, variables: { name: 'x', count: 1 } } });
  const n = await p.waitForNotification(t.apiKey.key, res.body.notificationId);
  expect(n.stats).toMatchObject({ devices: 300, sent: 300, failed: 0 });

  const times = p.emulator.received().filter((m) => m.token!.startsWith(prefix)).map((m) => m.receivedAt).sort((a, b) => a - b);
  expect(times).toHaveLength(300);
  // In any one-second window: at most a full bucket plus what refills during that second.
  let start = 0;
  for (let end = 0; end < times.length; end++) {
    while (times[end] - times[start] >= 1000) start++;
    expect(end - start + 1).toBeLessThanOrEqual(200);
  }
  expect(times[times.length - 1] - times[0]).toBeGreaterThanOrEqual(1000);
});
