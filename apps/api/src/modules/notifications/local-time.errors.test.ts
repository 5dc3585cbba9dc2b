import { randomUUID } from 'node:crypto';
import { expectError, startApi, tenant, type Harness } from '@herald/testing';

/** Local-time sends: what send and send-bulk refuse (400 naming the field), with nothing written or queued. */

let h: Harness;
beforeAll(async () => {
  h = await startApi();
});
afterAll(() => h.close());

const tomorrow = () => new Date(Date.now() + 86_400_000).toISOString();

it.each([
  [{ deliverAt: { localTime: '9:00' } }, 'deliverAt.localTime'],
  [{ deliverAt: { localTime: '24:00' } }, 'deliverAt.localTime'],
  [{ deliverAt: { localTime: '09:00:00' } }, 'deliverAt.localTime'],
  [{ deliverAt: { localTime: 900 } }, 'deliverAt.localTime'],
  [{ deliverAt: '09:00' }, 'deliverAt'],
  [{ ignoreQuietHours: 'yes' }, 'ignoreQuietHours'],
  [{ deliverAt: { localTime: '09:00' }, sendAt: tomorrow() }, 'deliverAt'],
])('refuses %j with 400 naming %s, on send and send-bulk, and queues nothing', async (extra, field) => {
  const t = await tenant(h);
  const common = { templateId: randomUUID(), ...extra };
  for (const [path, body] of [
    ['/push/send', { userId: 'u1', ...common }],
    ['/push/send-bulk', { userIds: ['u1', 'u2'], ...common }],
  ] as const) {
    const res = await h.post(path, { apiKey: t.apiKey.key, body });
    expectError(res, 400);
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain(field);
  }
  expect(await h.db.notification.count({ where: { projectId: t.project.id } })).toBe(0);
});
