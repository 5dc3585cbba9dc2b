import { nextLocalTime } from '@herald/core';
import { expectError, startApi, tenant, unique, type Harness } from '@herald/testing';

/** POST /push/audience/count with `deliverAt`: devices per delivery hour, and those in the project's default zone. */

let h: Harness;
beforeAll(async () => {
  h = await startApi();
});
afterAll(() => h.close());

const hourOf = (ms: number) => new Date(Math.floor(ms / 3600_000) * 3600_000).toISOString();

it('counts the devices of each delivery hour, and the ones without a zone', async () => {
  const t = await tenant(h);
  await h.put(`/projects/${t.project.id}/settings`, { token: t.owner.accessToken, body: { defaultTimezone: 'America/New_York' } });
  const zones = ['Europe/Berlin', 'Europe/Berlin', 'Asia/Tokyo', undefined, undefined, undefined];
  for (const timezone of zones) {
    const res = await h.post('/push/register-device', { apiKey: t.apiKey.key, body: { provider: 'fcm', platform: 'android', userId: unique('u'), deviceToken: unique('tok'), ...(timezone ? { timezone } : {}) } });
    expect([200, 201]).toContain(res.status);
  }
  const before = Date.now();
  const res = await h.post('/push/audience/count', { apiKey: t.apiKey.key, body: { all: true, deliverAt: { localTime: '09:00' } } });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ devices: 6, users: 6 });
  expect(res.body.deliveryHours.defaultZoneDevices).toBe(3);
  const expected = new Map<string, number>();
  for (const [zone, devices] of [['Europe/Berlin', 2], ['Asia/Tokyo', 1], ['America/New_York', 3]] as const) {
    const hour = hourOf(nextLocalTime(zone, '09:00', before));
    expected.set(hour, (expected.get(hour) ?? 0) + devices);
  }
  expect(res.body.deliveryHours.hours).toEqual([...expected].sort(([a], [b]) => a.localeCompare(b)).map(([hour, devices]) => ({ hour, devices })));

  // Without deliverAt the answer is the plain count.
  expect((await h.post('/push/audience/count', { apiKey: t.apiKey.key, body: { all: true } })).body.deliveryHours).toBeUndefined();
});

it('a localTime that is not HH:MM is a 400 naming deliverAt.localTime', async () => {
  const t = await tenant(h);
  const res = await h.post('/push/audience/count', { apiKey: t.apiKey.key, body: { all: true, deliverAt: { localTime: '25:00' } } });
  expectError(res, 400);
  expect(res.body.details.map((d: { path: string }) => d.path)).toContain('deliverAt.localTime');
});
