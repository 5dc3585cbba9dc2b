import { expectError, startApi, tenant, type Harness } from '@herald/testing';

/** Project settings: what a PUT refuses (400 naming the field), and that nothing is written then. */

let h: Harness;
beforeAll(async () => {
  h = await startApi();
});
afterAll(() => h.close());

it.each([
  [{ defaultTimezone: 'Mars/Olympus' }, 'defaultTimezone'],
  [{ defaultTimezone: '+05:00' }, 'defaultTimezone'],
  [{ defaultTimezone: 7 }, 'defaultTimezone'],
  [{ quietHours: { start: '22:00', end: '22:00' } }, 'quietHours.end'],
  [{ quietHours: { start: '9:00', end: '08:00' } }, 'quietHours.start'],
  [{ quietHours: { start: '22:00', end: '24:00' } }, 'quietHours.end'],
  [{ quietHours: { start: '22:00' } }, 'quietHours.end'],
  [{ quietHours: '22:00-08:00' }, 'quietHours'],
  [{ deliveryIdInData: 'false' }, 'deliveryIdInData'],
  [{ deliveryIdInData: 0 }, 'deliveryIdInData'],
  [{ deliveryIdInData: null }, 'deliveryIdInData'],
  [{}, ''],
])('refuses %j with 400 naming %s, and writes nothing', async (body, field) => {
  const t = await tenant(h);
  const res = await h.put(`/projects/${t.project.id}/settings`, { token: t.owner.accessToken, body });
  expectError(res, 400);
  if (field) expect(res.body.details.map((d: { path: string }) => d.path)).toContain(field);
  expect(await h.db.projectSettings.count({ where: { projectId: t.project.id } })).toBe(0);
});
