import { randomUUID } from 'node:crypto';
import { addMember, expectError, startApi, tenant, type Harness } from '@herald/testing';

let h: Harness;
beforeAll(async () => {
  h = await startApi();
});
afterAll(() => h.close());

const HOUR = 3600_000;

async function notification(projectId: string, createdAt: Date, sent: number, failed: number, dryRun = false) {
  await h.db.notification.create({
    data: { projectId, templateId: randomUUID(), userIds: ['u'], variables: {}, status: failed ? 'partially_failed' : 'completed', sent, failed, createdAt, dryRun },
  });
}

describe('GET /projects/{projectId}/overview', () => {
  it('sums sent and failed devices per hour over 24 hours and per UTC day over 7 days, zeros included, dry runs left out, and counts devices by platform', async () => {
    const t = await tenant(h);
    const other = await tenant(h);
    const now = Date.now();
    await notification(t.project.id, new Date(now - 60_000), 3, 1);
    await notification(t.project.id, new Date(now - 2 * HOUR), 2, 0);
    await notification(t.project.id, new Date(now - 3 * 24 * HOUR), 5, 5);
    await notification(t.project.id, new Date(now - 9 * 24 * HOUR), 100, 100); // outside both windows
    await notification(other.project.id, new Date(now - 60_000), 50, 50); // another tenant's
    await notification(t.project.id, new Date(now - 60_000), 7, 0, true); // a dry run: validated, nothing delivered
    for (const [platform, token] of [['android', 'a1'], ['android', 'a2'], ['ios', 'i1']]) {
      await h.db.device.create({ data: { projectId: t.project.id, userId: 'u', deviceToken: token, provider: 'fcm', platform } });
    }
    await h.db.device.create({ data: { projectId: other.project.id, userId: 'u', deviceToken: 'w1', provider: 'fcm', platform: 'web' } });

    const res = await h.get(`/projects/${t.project.id}/overview`, { token: t.owner.accessToken });
    expect(res.status).toBe(200);
    const o = res.body;
    expect(o.last24h).toMatchObject({ notifications: 2, sent: 5, failed: 1 });
    expect(o.last24h.hours).toHaveLength(24);
    const hourOf = (ms: number) => new Date(Math.floor(ms / HOUR) * HOUR).toISOString();
    expect(o.last24h.hours.find((b: { start: string }) => b.start === hourOf(now - 60_000))).toMatchObject({ notifications: 1, sent: 3, failed: 1 });
    expect(o.last24h.hours.at(-1).start).toBe(hourOf(Date.parse(o.generatedAt)));
    expect(o.last24h.hours.reduce((n: number, b: { sent: number }) => n + b.sent, 0)).toBe(5);
    const starts = o.last24h.hours.map((b: { start: string }) => Date.parse(b.start));
    expect(starts.slice(1).map((s: number, i: number) => s - starts[i])).toEqual(Array(23).fill(HOUR));

    expect(o.last7d).toMatchObject({ notifications: 3, sent: 10, failed: 6 });
    expect(o.last7d.days).toHaveLength(7);
    expect(o.last7d.days.every((d: { start: string }) => d.start.endsWith('T00:00:00.000Z'))).toBe(true);
    expect(o.last7d.days.at(-1).start).toBe(new Date(new Date(o.generatedAt).setUTCHours(0, 0, 0, 0)).toISOString());

    expect(o.devices).toEqual({ total: 3, byPlatform: [{ platform: 'android', count: 2 }, { platform: 'ios', count: 1 }] });
  });

  it('follows the counters as deliveries finish, devices come and go, and a deleted project takes its roll-ups along', async () => {
    const t = await tenant(h);
    const n = await h.db.notification.create({ data: { projectId: t.project.id, templateId: randomUUID(), userIds: ['u'], variables: {}, status: 'processing', devices: 5 } });
    const devices = await Promise.all(['a', 'b', 'c'].map((token) => h.db.device.create({ data: { projectId: t.project.id, userId: 'u', deviceToken: token, provider: 'fcm', platform: 'android' } })));
    const read = async () => (await h.get(`/projects/${t.project.id}/overview`, { token: t.owner.accessToken })).body;
    expect((await read()).last24h).toMatchObject({ notifications: 1, sent: 0, failed: 0 });
    // Outcomes written in two statements, as the worker writes them.
    await h.db.notification.update({ where: { id: n.id }, data: { sent: { increment: 2 } } });
    await h.db.notification.update({ where: { id: n.id }, data: { sent: { increment: 2 }, failed: { increment: 1 }, status: 'partially_failed' } });
    await h.db.device.delete({ where: { id: devices[0].id } });
    await h.db.device.update({ where: { id: devices[1].id }, data: { platform: 'ios' } });
    const o = await read();
    expect(o.last24h).toMatchObject({ notifications: 1, sent: 4, failed: 1 });
    expect(o.last7d).toMatchObject({ notifications: 1, sent: 4, failed: 1 });
    expect(o.devices).toEqual({ total: 2, byPlatform: [{ platform: 'android', count: 1 }, { platform: 'ios', count: 1 }] });

    await h.db.project.delete({ where: { id: t.project.id } });
    expect(await h.db.projectActivity.count({ where: { projectId: t.project.id } })).toBe(0);
    expect(await h.db.projectDeviceCount.count({ where: { projectId: t.project.id } })).toBe(0);
  });

  it('answers an empty project with zeros', async () => {
    const t = await tenant(h);
    const res = await h.get(`/projects/${t.project.id}/overview`, { token: t.owner.accessToken });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ last24h: { notifications: 0, sent: 0, failed: 0 }, last7d: { notifications: 0, sent: 0, failed: 0 }, devices: { total: 0, byPlatform: [] } });
    expect(res.body.last7d.days.every((d: { sent: number }) => d.sent === 0)).toBe(true);
  });

  it('is for members only: a team_member reads it, a stranger and an unknown project get 404, an API key 401', async () => {
    const t = await tenant(h);
    const member = await h.user();
    await addMember(h, t.project.id, member, 'team_member');
    expect((await h.get(`/projects/${t.project.id}/overview`, { token: member.accessToken })).status).toBe(200);
    expectError(await h.get(`/projects/${t.project.id}/overview`, { token: (await h.user()).accessToken }), 404);
    expectError(await h.get(`/projects/${randomUUID()}/overview`, { token: t.owner.accessToken }), 404);
    expectError(await h.get(`/projects/not-a-uuid/overview`, { token: t.owner.accessToken }), 400);
    expectError(await h.get(`/projects/${t.project.id}/overview`, { apiKey: t.apiKey.key }), 401);
  });
});
