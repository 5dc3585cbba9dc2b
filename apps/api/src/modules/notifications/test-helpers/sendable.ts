import { deliverJob, notificationsOf, type DeliverJobData } from '@herald/core';
import { providerBody, rsaKey, tenant, unique, type Harness } from '@herald/testing';

const { privateKey } = rsaKey();

/**
 * A project that can send: push config, one provider and a template using `{{name}}` and `{{count}}`,
 * made through the API as a customer would. No worker runs in these tests: they are about what the
 * API answers and what it writes and queues.
 */
export async function sendableProject(h: Harness) {
  const t = await tenant(h);
  const auth = { token: t.owner.accessToken, query: { projectId: t.project.id } };
  expect((await h.post('/push-config', { ...auth, body: {} })).status).toBe(201);
  const provider = await h.post('/push-config/providers', { ...auth, body: providerBody(privateKey) });
  expect(provider.status).toBe(201);
  const template = await h.post('/push-templates', {
    token: t.owner.accessToken,
    body: { projectId: t.project.id, name: unique('tpl'), title: 'Hi {{name}}', body: 'You have {{count}} messages' },
  });
  expect(template.status).toBe(201);
  const variables = { name: 'Ada', count: 1 };
  return { ...t, auth, providerId: provider.body.id as string, templateId: template.body.id as string, variables };
}
export type SendableProject = Awaited<ReturnType<typeof sendableProject>>;

/** The delivery jobs queued for these notifications (their own, or shared with others). */
export async function queuedJobsFor(h: Harness, notificationIds: string[]) {
  const jobs = await h.container.queue.getJobs(['waiting', 'active', 'delayed', 'completed', 'failed']);
  return jobs.filter((j) => j.name === deliverJob.name && notificationsOf(j.data as DeliverJobData).some((id) => notificationIds.includes(id)));
}
