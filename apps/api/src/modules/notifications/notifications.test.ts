import { randomUUID } from 'node:crypto';
import { startApi, unique, type Harness } from '@herald/testing';
import { queuedJobsFor, sendableProject } from './test-helpers/sendable';

/**
 * Sending, as the API answers it: what is written and queued. Delivery itself (the worker, FCM) is
 * tested end to end in apps/worker. Errors: notifications.errors.test.ts; tenancy and credentials:
 * notifications.security.test.ts.
 */
let h: Harness;
beforeAll(async () => {
  h = await startApi();
});
afterAll(() => h.close());

describe('POST /push/send', () => {
  it('with an API key: 202 queued, one notification row and one job carrying only its id', async () => {
    const p = await sendableProject(h);
    const res = await h.post('/push/send', { apiKey: p.apiKey.key, body: { userId: 'user-1', templateId: p.templateId, variables: p.variables } });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ notificationId: expect.any(String), status: 'queued' });
    const row = await h.db.notification.findUniqueOrThrow({ where: { id: res.body.notificationId } });
    expect(row).toMatchObject({ projectId: p.project.id, templateId: p.templateId, userIds: ['user-1'], status: 'queued', recipients: 1, bulk: false });
    const jobs = await queuedJobsFor(h, [res.body.notificationId]);
    expect(jobs.map((j) => j.data)).toEqual([{ notificationId: res.body.notificationId }]);
  });

  it('with a JWT and projectId; a team member may send', async () => {
    const p = await sendableProject(h);
    const member = await h.user();
    await h.db.projectMember.create({ data: { projectId: p.project.id, userId: member.id, role: 'team_member' } });
    for (const token of [p.owner.accessToken, member.accessToken]) {
      const res = await h.post('/push/send', { token, query: { projectId: p.project.id }, body: { userId: 'user-1', templateId: p.templateId, variables: p.variables } });
      expect(res.status).toBe(202);
    }
  });
});

describe('POST /push/send-bulk', () => {
  it('counts duplicate user ids once, and accepts exactly 500', async () => {
    const p = await sendableProject(h);
    const dup = await h.post('/push/send-bulk', { apiKey: p.apiKey.key, body: { userIds: ['a', 'b', 'a'], templateId: p.templateId, variables: p.variables } });
    expect(dup.status).toBe(202);
    expect(dup.body).toEqual({ notificationId: expect.any(String), status: 'queued', recipients: 2 });
    const userIds = Array.from({ length: 500 }, (_, i) => `u${i}`);
    const full = await h.post('/push/send-bulk', { apiKey: p.apiKey.key, body: { userIds, templateId: p.templateId, variables: p.variables } });
    expect(full.status).toBe(202);
    expect(full.body.recipients).toBe(500);
    expect(await h.db.notification.findUniqueOrThrow({ where: { id: full.body.notificationId } })).toMatchObject({ recipients: 500, bulk: true });
  });
});

describe('Idempotency-Key', () => {
  it('the same key answers the first response and writes nothing again, also concurrently; another project may use it', async () => {
    const p = await sendableProject(h);
    const key = unique('idem');
    const body = { userId: 'user-1', templateId: p.templateId, variables: p.variables };
    const first = await h.post('/push/send', { apiKey: p.apiKey.key, body, headers: { 'Idempotency-Key': key } });
    const again = await h.post('/push/send', { apiKey: p.apiKey.key, body, headers: { 'Idempotency-Key': key } });
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(again.body).toEqual(first.body);

    const concurrent = await Promise.all(Array.from({ length: 5 }, () => h.post('/push/send', { apiKey: p.apiKey.key, body, headers: { 'Idempotency-Key': `${key}-c` } })));
    expect(concurrent.map((r) => r.status)).toEqual(Array(5).fill(202));
    expect(new Set(concurrent.map((r) => r.body.notificationId)).size).toBe(1);
    expect(await h.db.notification.count({ where: { projectId: p.project.id } })).toBe(2);
    expect(await queuedJobsFor(h, [first.body.notificationId, concurrent[0].body.notificationId])).toHaveLength(2);

    const other = await sendableProject(h);
    const theirs = await h.post('/push/send', { apiKey: other.apiKey.key, body: { ...body, templateId: other.templateId }, headers: { 'Idempotency-Key': key } });
    expect(theirs.status).toBe(202);
    expect(theirs.body.notificationId).not.toBe(first.body.notificationId);
  });

  it('a refused request stores no answer under its key: the corrected request with the same key is accepted once', async () => {
    const p = await sendableProject(h);
    const key = unique('idem-refused');
    const body = { userId: 'user-1', templateId: p.templateId, variables: p.variables };
    const refused = await h.post('/push/send', { apiKey: p.apiKey.key, body: { ...body, templateId: randomUUID() }, headers: { 'Idempotency-Key': key } });
    expect(refused.status).toBe(404);
    const accepted = await h.post('/push/send', { apiKey: p.apiKey.key, body, headers: { 'Idempotency-Key': key } });
    const again = await h.post('/push/send', { apiKey: p.apiKey.key, body, headers: { 'Idempotency-Key': key } });
    expect([accepted.status, again.status]).toEqual([202, 202]);
    expect(again.body).toEqual(accepted.body);
    expect(await h.db.notification.count({ where: { projectId: p.project.id } })).toBe(1);
  });
});

describe('reading notifications', () => {
  it('GET /push/notifications lists newest first, paginated; GET …/{id} reads one, with a key or a JWT', async () => {
    const p = await sendableProject(h);
    const sent: string[] = [];
    for (const userId of ['a', 'b', 'c']) {
      const res = await h.post('/push/send', { apiKey: p.apiKey.key, body: { userId, templateId: p.templateId, variables: p.variables } });
      sent.push(res.body.notificationId);
    }
    const page = await h.get('/push/notifications', { token: p.owner.accessToken, query: { projectId: p.project.id, limit: 2 } });
    expect(page.status).toBe(200);
    expect(page.body.meta).toEqual({ page: 1, limit: 2, total: 3, totalPages: 2 });
    expect(page.body.data.map((n: { id: string }) => n.id)).toEqual([sent[2], sent[1]]);
    const one = await h.get(`/push/notifications/${sent[0]}`, { apiKey: p.apiKey.key });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: sent[0], status: 'queued', templateId: p.templateId, completedAt: null, deliveries: [] });
    expect(one.body.stats).toEqual({ recipients: 1, devices: 0, sent: 0, failed: 0, invalidTokensRemoved: 0 });
  });
});
