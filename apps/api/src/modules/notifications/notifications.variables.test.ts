import { expectError, startApi, unique, type Harness } from '@herald/testing';
import { sendableProject } from './test-helpers/sendable';

/**
 * Variables a template never reads were stored whole, for as long as the notification is kept: 956 KB
 * of recipientVariables in one accepted request, 64 KB of junk with every plain send. Only the
 * variables the template can read are stored now, and the variables of one request are bounded.
 */
let h: Harness;
beforeAll(async () => {
  h = await startApi();
});
afterAll(() => h.close());

const JUNK = 'j'.repeat(60_000);

it('a send stores only the variables its template reads', async () => {
  const t = await sendableProject(h);
  const res = await h.post('/push/send', { apiKey: t.apiKey.key, body: { userId: 'u', templateId: t.templateId, variables: { name: 'Ada', count: 2, junk: JUNK, more: { deep: JUNK.slice(0, 1000) } } } });
  expect(res.status).toBe(202);
  const row = await h.db.notification.findUniqueOrThrow({ where: { id: res.body.notificationId } });
  expect(row.variables).toEqual({ name: 'Ada', count: 2 });
});

it('a personalised bulk stores only what the template reads, per recipient; a recipient left with nothing stores nothing', async () => {
  const t = await sendableProject(h);
  const recipients = Array.from({ length: 15 }, (_, i) => ({ userId: `u${i}`, variables: { name: `N${i}`, junk: JUNK.slice(0, 10_000) } }));
  recipients.push({ userId: 'only-junk', variables: { junk: 'x' } as never });
  const res = await h.post('/push/send-bulk', { apiKey: t.apiKey.key, body: { templateId: t.templateId, variables: { count: 1, name: 'Friend', unused: JUNK }, recipients } });
  expect(res.status).toBe(202);
  const row = await h.db.notification.findUniqueOrThrow({ where: { id: res.body.notificationId } });
  expect(row.variables).toEqual({ count: 1, name: 'Friend' });
  const stored = row.recipientVariables as Record<string, Record<string, unknown>>;
  expect(Object.keys(stored)).toHaveLength(15);
  expect(stored.u3).toEqual({ name: 'N3' });
  expect(JSON.stringify(row.recipientVariables).length).toBeLessThan(1000);
});

it('a template that reads the variables as a whole (lookup this …, @root, with this) keeps them all', async () => {
  const t = await sendableProject(h);
  for (const body of ['{{lookup this key}}', '{{#each @root}}{{@key}}{{/each}}', '{{#with this}}{{other}}{{/with}}']) {
    const created = await h.post('/push-templates', { token: t.owner.accessToken, body: { projectId: t.project.id, name: unique('whole'), title: 't', body } });
    expect(created.status).toBe(201);
    const variables = { key: 'other', other: 'shown', extra: 'e' };
    const res = await h.post('/push/send', { apiKey: t.apiKey.key, body: { userId: 'u', templateId: created.body.id, variables } });
    expect(res.status).toBe(202);
    expect((await h.db.notification.findUniqueOrThrow({ where: { id: res.body.notificationId } })).variables).toEqual(variables);
  }
});

it('the variables of one request are at most 256 KB together: past it a 400 naming recipients, nothing written', async () => {
  const t = await sendableProject(h);
  const recipients = Array.from({ length: 5 }, (_, i) => ({ userId: `u${i}`, variables: { name: 'n', junk: 'j'.repeat(55_000) } }));
  const res = await h.post('/push/send-bulk', { apiKey: t.apiKey.key, body: { templateId: t.templateId, variables: { count: 1 }, recipients } });
  expectError(res, 400, /at most 262144 bytes/);
  expect(res.body.details).toContainEqual({ path: 'recipients', message: expect.stringMatching(/at most 262144 bytes as JSON/) });
  expect(await h.db.notification.count({ where: { projectId: t.project.id } })).toBe(0);
});
