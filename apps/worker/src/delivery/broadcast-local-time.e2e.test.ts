import { localClock, nextLocalTime } from '@herald/core';
import { hhmm, nextMinute, startPipeline, unique, waitUntil, type Pipeline } from '@herald/testing';

/**
 * Broadcasts with local time and quiet hours through the whole pipeline: API → Postgres + Redis →
 * worker (a child process) → FCM emulator. As in local-time.e2e, local times are chosen from the clock
 * so that a device's moment comes a few seconds after the broadcast.
 */
let p: Pipeline;
beforeAll(async () => {
  p = await startPipeline();
  await p.startWorker();
}, 60_000);
afterAll(() => p.close());

type Project = Awaited<ReturnType<Pipeline['project']>>;

async function register(t: Project, timezone?: string) {
  const deviceToken = unique('tok');
  const res = await p.h.post('/push/register-device', { apiKey: t.apiKey.key, body: { provider: 'fcm', platform: 'android', userId: unique('cust'), deviceToken, ...(timezone ? { timezone } : {}) } });
  expect([200, 201]).toContain(res.status);
  return deviceToken;
}

const settings = (t: Project, body: unknown) => p.h.put(`/projects/${t.project.id}/settings`, { token: t.owner.accessToken, body });
const read = async (t: Project, id: string) => (await p.h.get(`/push/notifications/${id}`, { apiKey: t.apiKey.key })).body;
const broadcast = (t: Project, body: Record<string, unknown>) =>
  p.h.post('/push/broadcast', { apiKey: t.apiKey.key, body: { templateId: t.templateId, variables: { name: 'a', count: 1 }, audience: { all: true }, ...body } });
const heldJobs = async (id: string) => (await p.h.container.queue.getJobs(['delayed', 'wait', 'active'])).filter((j) => j?.id?.startsWith(`deliver-${id}-at-`));

it('deliverAt: a device receives the broadcast at its local time and not before; other zones are held, counted, and canceled', async () => {
  const t = await p.project();
  // The default zone is 14 hours ahead of UTC: its next HH:MM is hours away from the Kolkata device's.
  expect((await settings(t, { defaultTimezone: 'Pacific/Kiritimati' })).status).toBe(200);
  const zoned = await register(t, 'Asia/Kolkata');
  const elsewhere = await register(t, 'America/Los_Angeles');
  const zoneless = await register(t);
  const { at, local } = await nextMinute('Asia/Kolkata');

  const res = await broadcast(t, { deliverAt: { localTime: local } });
  expect(res.status).toBe(202);
  const id = res.body.notificationId;

  // All three planned and held, each zone's moment its own delayed job; nothing has reached a device.
  const planned = await waitUntil(async () => {
    const n = await read(t, id);
    return n.progress?.fannedOut && n.stats.devices === 3 ? n : undefined;
  }, 10_000, 'the broadcast fanned out');
  expect(planned.status).toBe('processing');
  expect(planned.stats).toMatchObject({ devices: 3, sent: 0, held: 3, defaultZoneDevices: 1 });
  const moments = [at, nextLocalTime('America/Los_Angeles', local, Date.now()), nextLocalTime('Pacific/Kiritimati', local, Date.now())];
  expect(new Set((await heldJobs(id)).map((j) => Number(j.id!.split('-at-')[1])))).toEqual(new Set(moments));
  expect(p.emulator.received({ token: zoned })).toHaveLength(0);

  // At its moment the Kolkata device receives it, not before; the others stay held.
  const [received] = await waitUntil(() => {
    const r = p.emulator.received({ token: zoned });
    return r.length ? r : undefined;
  }, at - Date.now() + 15_000, 'the Kolkata device to receive it');
  expect(received.receivedAt).toBeGreaterThanOrEqual(at - 50);
  const half = await waitUntil(async () => {
    const n = await read(t, id);
    return n.stats.sent === 1 ? n : undefined;
  }, 10_000, 'the sent delivery recorded');
  expect(half.status).toBe('processing');
  expect(half.stats).toMatchObject({ sent: 1, held: 2 });

  // Cancel works until the last device's moment: the held ones are never sent, their jobs removed.
  const canceled = await p.h.post(`/push/notifications/${id}/cancel`, { apiKey: t.apiKey.key });
  expect(canceled.status).toBe(200);
  expect(canceled.body.status).toBe('canceled');
  expect(await heldJobs(id)).toHaveLength(0);
  expect(p.emulator.received({ token: elsewhere })).toHaveLength(0);
  expect(p.emulator.received({ token: zoneless })).toHaveLength(0);
  expect((await read(t, id)).stats).toMatchObject({ sent: 1 });
}, 120_000);

it('quiet hours hold a broadcast delivery until they end; ignoreQuietHours goes through', async () => {
  const t = await p.project();
  const zone = 'America/New_York';
  const { at, local } = await nextMinute(zone);
  const now = localClock(zone, Date.now()).minute;
  // A window that started an hour ago in the device's zone and ends at the next minute there.
  expect((await settings(t, { quietHours: { start: hhmm((now + 24 * 60 - 60) % (24 * 60)), end: local } })).status).toBe(200);
  const token = await register(t, zone);

  const quiet = await broadcast(t, {});
  expect(quiet.status).toBe(202);
  const ignoring = await broadcast(t, { ignoreQuietHours: true });
  expect((await p.waitForNotification(t.apiKey.key, ignoring.body.notificationId)).status).toBe('completed');
  expect(p.emulator.received({ token })).toHaveLength(1);

  const held = await waitUntil(async () => {
    const n = await read(t, quiet.body.notificationId);
    return n.progress?.fannedOut ? n : undefined;
  }, 10_000, 'the broadcast fanned out');
  expect(held.status).toBe('processing');
  expect(held.stats).toMatchObject({ devices: 1, sent: 0, held: 1, defaultZoneDevices: 0 });
  expect(held.schedule).toEqual([{ hour: new Date(Math.floor(at / 3600_000) * 3600_000).toISOString(), devices: 1 }]);

  // Final only once the held delivery is sent, at the end of the window.
  const done = await p.waitForNotification(t.apiKey.key, quiet.body.notificationId, at - Date.now() + 20_000);
  expect(done.status).toBe('completed');
  expect(done.stats).toMatchObject({ sent: 1, held: 0 });
  const all = p.emulator.received({ token });
  expect(all).toHaveLength(2);
  expect(all[1].receivedAt).toBeGreaterThanOrEqual(at - 50);
}, 120_000);

it('a dry run of a local-time broadcast says how many devices fall in each delivery hour, and validates at once', async () => {
  const t = await p.project();
  expect((await settings(t, { defaultTimezone: 'Asia/Tokyo' })).status).toBe(200);
  await register(t, 'Europe/Berlin');
  await register(t, 'Europe/Paris');
  await register(t);
  const before = Date.now();
  const res = await broadcast(t, { dryRun: true, deliverAt: { localTime: '09:00' } });
  expect(res.status).toBe(202);
  const hour = (zone: string) => new Date(Math.floor(nextLocalTime(zone, '09:00', before) / 3600_000) * 3600_000).toISOString();
  const expected = [
    { hour: hour('Europe/Berlin'), devices: 2 },
    { hour: hour('Asia/Tokyo'), devices: 1 },
  ].sort((a, b) => a.hour.localeCompare(b.hour));
  expect(res.body.audience).toMatchObject({ devices: 3 });
  expect(res.body.deliveryHours).toEqual({ defaultZoneDevices: 1, hours: expected });
  const n = await p.waitForNotification(t.apiKey.key, res.body.notificationId);
  expect(n.status).toBe('completed');
  expect(n.stats).toMatchObject({ devices: 3, sent: 3, held: 0, defaultZoneDevices: 1 });
  expect(n.schedule).toEqual(expected);
}, 60_000);
