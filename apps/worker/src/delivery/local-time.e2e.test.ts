import { localClock, nextLocalTime } from '@herald/core';
import { hhmm, nextMinute, startPipeline, unique, waitUntil, type Pipeline } from '@herald/testing';

/**
 * Local-time delivery and quiet hours through the whole pipeline: API → Postgres + Redis → worker
 * (a child process) → FCM emulator. The local times are chosen from the clock so that a device's
 * moment comes a few seconds after the send (the 09:00, brought near).
 */
let p: Pipeline;
beforeAll(async () => {
  p = await startPipeline();
  await p.startWorker();
}, 60_000);
afterAll(() => p.close());

type Project = Awaited<ReturnType<Pipeline['project']>>;

async function register(t: Project, userId: string, timezone?: string) {
  const deviceToken = unique('tok');
  const res = await p.h.post('/push/register-device', { apiKey: t.apiKey.key, body: { provider: 'fcm', platform: 'android', userId, deviceToken, ...(timezone ? { timezone } : {}) } });
  expect([200, 201]).toContain(res.status);
  return deviceToken;
}

const settings = (t: Project, body: unknown) => p.h.put(`/projects/${t.project.id}/settings`, { token: t.owner.accessToken, body });
const read = async (t: Project, id: string) => (await p.h.get(`/push/notifications/${id}`, { apiKey: t.apiKey.key })).body;
const send = (t: Project, body: Record<string, unknown>) => p.h.post('/push/send', { apiKey: t.apiKey.key, body: { templateId: t.templateId, variables: { name: 'a', count: 1 }, ...body } });

it('deliverAt: a device receives it at its local time and not before; a device without a zone follows the default, is counted, and can still be canceled', async () => {
  const t = await p.project();
  // The default zone is 14 hours ahead of UTC: its next HH:MM is hours away from the Kolkata device's.
  expect((await settings(t, { defaultTimezone: 'Pacific/Kiritimati' })).status).toBe(200);
  const userId = unique('cust');
  const zoned = await register(t, userId, 'Asia/Kolkata');
  const zoneless = await register(t, userId);
  const { at, local } = await nextMinute('Asia/Kolkata');

  const res = await send(t, { userId, deliverAt: { localTime: local } });
  expect(res.status).toBe(202);
  const id = res.body.notificationId;
  const defaultDue = nextLocalTime('Pacific/Kiritimati', local, Date.now());

  // Both held, each with its own moment; nothing has reached a device. (A read is two statements, the
  // notification's row and then its deliveries: one that falls between the planning's writes can see
  // the deliveries with the status before them, so the wait is for both.)
  const held = await waitUntil(async () => {
    const n = await read(t, id);
    return n.deliveries?.length === 2 && n.status === 'processing' ? n : undefined;
  }, 10_000, 'both deliveries planned');
  expect(held.status).toBe('processing');
  expect(held.deliverAt).toEqual({ localTime: local });
  expect(held.stats).toMatchObject({ recipients: 1, devices: 2, sent: 0, held: 2, defaultZoneDevices: 1 });
  expect(held.deliveries.map((d: { status: string; notBefore: string }) => [d.status, Date.parse(d.notBefore)]).sort((a: [string, number], b: [string, number]) => a[1] - b[1])).toEqual([
    ['held', at],
    ['held', defaultDue],
  ]);
  expect(held.schedule).toEqual(expect.arrayContaining([{ hour: new Date(Math.floor(at / 3600_000) * 3600_000).toISOString(), devices: expect.any(Number) }]));
  expect(p.emulator.received({ token: zoned })).toHaveLength(0);

  // At its moment the Kolkata device receives it, not before.
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
  expect(half.stats).toMatchObject({ sent: 1, held: 1 });
  expect(p.emulator.received({ token: zoneless })).toHaveLength(0);

  // The default-zone device is still held: cancel works until its moment, and it is never sent.
  const canceled = await p.h.post(`/push/notifications/${id}/cancel`, { apiKey: t.apiKey.key });
  expect(canceled.status).toBe(200);
  expect(canceled.body.status).toBe('canceled');
  const after = await read(t, id);
  expect(after.status).toBe('canceled');
  expect(after.deliveries.map((d: { status: string }) => d.status).sort()).toEqual(['canceled', 'sent']);
  expect(p.emulator.received({ token: zoneless })).toHaveLength(0);
}, 120_000);

it('quiet hours: a device inside them is held until they end; priority high and ignoreQuietHours go through', async () => {
  const t = await p.project();
  const zone = 'America/New_York';
  const { at, local } = await nextMinute(zone);
  const now = localClock(zone, Date.now()).minute;
  // A window that started an hour ago in the device's zone and ends at the next minute there.
  expect((await settings(t, { quietHours: { start: hhmm((now + 24 * 60 - 60) % (24 * 60)), end: local } })).status).toBe(200);
  const userId = unique('cust');
  const token = await register(t, userId, zone);

  const quiet = await send(t, { userId });
  expect(quiet.status).toBe(202);
  const urgent = await send(t, { userId, priority: 'high' });
  const ignoring = await send(t, { userId, ignoreQuietHours: true });
  for (const r of [urgent, ignoring]) expect((await p.waitForNotification(t.apiKey.key, r.body.notificationId)).status).toBe('completed');
  expect(p.emulator.received({ token })).toHaveLength(2);

  const held = await read(t, quiet.body.notificationId);
  expect(held.status).toBe('processing');
  expect(held.stats).toMatchObject({ devices: 1, sent: 0, held: 1, defaultZoneDevices: 0 });
  expect(held.deliveries).toEqual([expect.objectContaining({ status: 'held', notBefore: new Date(at).toISOString() })]);

  const done = await p.waitForNotification(t.apiKey.key, quiet.body.notificationId, at - Date.now() + 20_000);
  expect(done.status).toBe('completed');
  expect(done.stats).toMatchObject({ sent: 1, held: 0 });
  expect(done.deliveries).toEqual([expect.objectContaining({ status: 'sent', notBefore: new Date(at).toISOString() })]);
  const all = p.emulator.received({ token });
  expect(all).toHaveLength(3);
  expect(all[2].receivedAt).toBeGreaterThanOrEqual(at - 50);
}, 120_000);

it('a dry run of a local-time send-bulk validates at once and says how many devices fall in each delivery hour', async () => {
  const t = await p.project();
  expect((await settings(t, { defaultTimezone: 'Asia/Tokyo' })).status).toBe(200);
  const users = [unique('cust'), unique('cust'), unique('cust')];
  await register(t, users[0], 'Europe/Berlin');
  await register(t, users[1], 'Europe/Paris');
  await register(t, users[2]);
  const before = Date.now();
  const res = await p.h.post('/push/send-bulk', { apiKey: t.apiKey.key, body: { userIds: users, templateId: t.templateId, variables: { name: 'a', count: 1 }, dryRun: true, deliverAt: { localTime: '09:00' } } });
  expect(res.status).toBe(202);
  const n = await p.waitForNotification(t.apiKey.key, res.body.notificationId);
  expect(n.status).toBe('completed');
  expect(n.stats).toMatchObject({ devices: 3, sent: 3, held: 0, defaultZoneDevices: 1 });
  const hour = (zone: string) => new Date(Math.floor(nextLocalTime(zone, '09:00', before) / 3600_000) * 3600_000).toISOString();
  const expected = [
    { hour: hour('Europe/Berlin'), devices: 2 },
    { hour: hour('Asia/Tokyo'), devices: 1 },
  ].sort((a, b) => a.hour.localeCompare(b.hour));
  expect(n.schedule).toEqual(expected);
  expect(n.deliveries.map((d: { status: string }) => d.status)).toEqual(['validated', 'validated', 'validated']);
}, 60_000);

it('devices over 30 zones share their scheduled work: one delayed job per moment, not one per device, all removed by a cancel', async () => {
  const t = await p.project();
  const zones = Intl.supportedValuesOf('timeZone').filter((_, i) => i % 13 === 0).slice(0, 30);
  expect(zones).toHaveLength(30);
  const users = zones.map(() => unique('cust'));
  for (const [i, zone] of zones.entries()) {
    await register(t, users[i], zone);
    await register(t, users[i], zone);
  }
  // 03:17 is never the current minute in all of them at once: nearly every device is held.
  const res = await p.h.post('/push/send-bulk', { apiKey: t.apiKey.key, body: { userIds: users, templateId: t.templateId, variables: { name: 'a', count: 1 }, deliverAt: { localTime: '03:17' } } });
  expect(res.status).toBe(202);
  const id = res.body.notificationId;
  const n = await waitUntil(async () => {
    const r = await read(t, id);
    return r.stats?.devices === 60 && r.stats.held + r.stats.sent === 60 ? r : undefined;
  }, 15_000, 'the 60 deliveries planned');
  const moments = new Set(n.deliveries.filter((d: { status: string }) => d.status === 'held').map((d: { notBefore: string }) => Date.parse(d.notBefore)));
  expect(moments.size).toBeLessThanOrEqual(30);

  const queue = p.h.container.queue;
  const jobsOf = async () => (await queue.getJobs(['delayed', 'wait', 'active'])).filter((j) => j?.id?.startsWith(`deliver-${id}-at-`));
  const jobs = await waitUntil(async () => {
    const found = await jobsOf();
    return found.length === moments.size ? found : undefined;
  }, 10_000, 'one delayed job per moment');
  expect(new Set(jobs.map((j) => Number(j.id!.split('-at-')[1])))).toEqual(moments);

  expect((await p.h.post(`/push/notifications/${id}/cancel`, { apiKey: t.apiKey.key })).status).toBe(200);
  expect(await jobsOf()).toHaveLength(0);
}, 90_000);
