import { expectError, startApi, tenant, type Harness } from '@herald/testing';
import { queuedJobsFor, sendableProject, type SendableProject } from './test-helpers/sendable';

/** Every broadcast the API refuses: a clear 4xx naming the field, and nothing written or queued. */
let h: Harness;
let p: SendableProject;
beforeAll(async () => {
  h = await startApi();
  p = await sendableProject(h);
});
afterAll(() => h.close());

const broadcast = (body: Record<string, unknown>, headers?: Record<string, string>) =>
  h.post('/push/broadcast', { apiKey: p.apiKey.key, headers, body: { templateId: p.templateId, variables: p.variables, audience: { all: true }, ...body } });

const inAnHour = () => new Date(Date.now() + 3600_000).toISOString();

describe('400s: each names its field in details', () => {
  it.each([
    ['no audience', { audience: undefined }, 'audience'],
    ['an empty audience', { audience: {} }, 'audience'],
    ['two audiences at once', { audience: { all: true, filter: { field: 'platform', op: 'eq', value: 'ios' } } }, 'audience.all'],
    ['all: false', { audience: { all: false } }, 'audience.all'],
    ['a segment id that is not a UUID', { audience: { segmentId: 'seg-1' } }, 'audience.segmentId'],
    ['an unknown field', { audience: { filter: { field: 'colour', op: 'eq', value: 'red' } } }, 'audience.filter.field'],
    ['an unknown operator', { audience: { filter: { field: 'platform', op: 'like', value: 'i%' } } }, 'audience.filter.op'],
    ['an in list over 500', { audience: { filter: { field: 'userId', op: 'in', value: Array.from({ length: 501 }, (_, i) => `u${i}`) } } }, 'audience.filter.value'],
    ['a filter nested too deep', { audience: { filter: { and: [{ or: [{ not: { and: [{ or: [{ field: 'platform', op: 'eq', value: 'ios' }] }] } }] }] } } }, 'audience.filter'],
    ['a bad template id', { templateId: 'nope' }, 'templateId'],
    ['a missing variable', { variables: { name: 'a' } }, 'variables.count'],
    ['ratePerMinute 0', { ratePerMinute: 0 }, 'ratePerMinute'],
    ['ratePerMinute 1.5', { ratePerMinute: 1.5 }, 'ratePerMinute'],
    ['ratePerMinute as a string', { ratePerMinute: '100' }, 'ratePerMinute'],
    ['a sendAt in the past', { sendAt: '2020-01-01T00:00:00Z' }, 'sendAt'],
    ['dryRun not a boolean', { dryRun: 'yes' }, 'dryRun'],
    ['dataOnly not a boolean', { dataOnly: 1 }, 'dataOnly'],
    ['a bad option', { priority: 'urgent' }, 'priority'],
    ['a rollout that is not an object', { rollout: [1, 100] }, 'rollout'],
    ['a rollout without stages', { rollout: { waitSeconds: 10 } }, 'rollout.stages'],
    ['no stage at all', { rollout: { stages: [] } }, 'rollout.stages'],
    ['more than 10 stages', { rollout: { stages: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 100] } }, 'rollout.stages'],
    ['a stage that is not a number', { rollout: { stages: ['10', 100] } }, 'rollout.stages.0'],
    ['a stage of 0', { rollout: { stages: [0, 100] } }, 'rollout.stages.0'],
    ['a stage over 100', { rollout: { stages: [10, 150] } }, 'rollout.stages.1'],
    ['stages not ascending', { rollout: { stages: [50, 10, 100] } }, 'rollout.stages.1'],
    ['a repeated stage', { rollout: { stages: [10, 10, 100] } }, 'rollout.stages.1'],
    ['a last stage under 100', { rollout: { stages: [10, 50] } }, 'rollout.stages.1'],
    ['a negative wait', { rollout: { stages: [100], waitSeconds: -1 } }, 'rollout.waitSeconds'],
    ['a wait over a day', { rollout: { stages: [100], waitSeconds: 86_401 } }, 'rollout.waitSeconds'],
    ['a fractional wait', { rollout: { stages: [100], waitSeconds: 1.5 } }, 'rollout.waitSeconds'],
    ['a failure rate over 1', { rollout: { stages: [100], haltWhen: { failureRate: 1.5 } } }, 'rollout.haltWhen.failureRate'],
    ['a negative invalid-token rate', { rollout: { stages: [100], haltWhen: { invalidTokenRate: -0.1 } } }, 'rollout.haltWhen.invalidTokenRate'],
    ['a rate as a string', { rollout: { stages: [100], haltWhen: { failureRate: '0.1' } } }, 'rollout.haltWhen.failureRate'],
    ['an unknown bound', { rollout: { stages: [100], haltWhen: { latency: 1 } } }, 'rollout.haltWhen'],
    ['an unknown rollout field', { rollout: { stages: [100], pauseSeconds: 1 } }, 'rollout'],
  ])('%s', async (_, body, path) => {
    const before = await h.db.notification.count({ where: { projectId: p.project.id } });
    const res = await broadcast(body);
    expectError(res, 400);
    expect((res.body.details as { path: string }[]).map((d) => d.path).some((d) => d === path || d.startsWith(`${path}.`))).toBe(true);
    expect(await h.db.notification.count({ where: { projectId: p.project.id } })).toBe(before);
  });
});

describe('other refusals', () => {
  it("a segment of no segment (or another project's) is a 404, and nothing is written", async () => {
    const before = await h.db.notification.count({ where: { projectId: p.project.id } });
    expectError(await broadcast({ audience: { segmentId: '00000000-0000-4000-8000-000000000000' } }), 404, 'Segment not found');
    expectError(await broadcast({ templateId: '00000000-0000-4000-8000-000000000000' }), 404, /Template not found/i);
    expect(await h.db.notification.count({ where: { projectId: p.project.id } })).toBe(before);
  });

  it('a project without push config is a 409', async () => {
    const t = await tenant(h);
    const tpl = await h.post('/push-templates', { token: t.owner.accessToken, body: { projectId: t.project.id, name: 'x', title: 'a', body: 'b' } });
    const res = await h.post('/push/broadcast', { apiKey: t.apiKey.key, body: { templateId: tpl.body.id, audience: { all: true } } });
    expect(res.status).toBe(409);
  });
});

describe('accepted', () => {
  it('records its audience, queues its own job, and replays its Idempotency-Key', async () => {
    const filter = { field: 'tags.plan', op: 'eq', value: 'pro' };
    const first = await broadcast({ audience: { filter }, ratePerMinute: 600 }, { 'Idempotency-Key': 'bc-1' });
    expect(first.status).toBe(202);
    expect(first.body).toEqual({ notificationId: expect.any(String), status: 'queued' });
    const again = await broadcast({ audience: { filter } }, { 'Idempotency-Key': 'bc-1' });
    expect(again.body).toEqual(first.body);
    const row = await h.db.notification.findUniqueOrThrow({ where: { id: first.body.notificationId } });
    expect(row).toMatchObject({ audience: { filter }, ratePerMinute: 600, userIds: [], recipients: 0, pendingDeliveries: 1, fannedOut: false });
    const jobs = await queuedJobsFor(h, [row.id]);
    expect(jobs.map((j) => j.id)).toEqual([`deliver-${row.id}`]);
  });

  it('a scheduled broadcast answers scheduled; a dry run answers the count', async () => {
    const sendAt = inAnHour();
    const scheduled = await broadcast({ sendAt });
    expect(scheduled.body).toEqual({ notificationId: expect.any(String), status: 'scheduled', sendAt });
    const dry = await broadcast({ dryRun: true });
    expect(dry.status).toBe(202);
    expect(dry.body.audience).toEqual({ devices: 0, users: 0, byPlatform: { android: 0, ios: 0, web: 0 } });
    // A scheduled broadcast can be canceled.
    const cancel = await h.post(`/push/notifications/${scheduled.body.notificationId}/cancel`, { apiKey: p.apiKey.key });
    expect(cancel.body).toMatchObject({ status: 'canceled', audience: { all: true } });
  });
});
