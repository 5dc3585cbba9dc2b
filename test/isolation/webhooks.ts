import type { IsolationTable } from './types';

const endpoint = () => ({ url: 'https://hooks.example.com/stolen', events: ['notification.failed'] });

/** Outcome webhooks: JWT-only routes for project_admin members, so a foreign API key may also get 401. */
export const webhooksTable: IsolationTable = {
  async setup(h, victim) {
    const res = await h.post(`/projects/${victim.project.id}/webhooks`, { token: victim.owner.accessToken, body: { url: 'https://hooks.example.com/victim', events: ['notification.completed'] } });
    if (res.status !== 201) throw new Error(`webhooks setup failed: ${res.text}`);
    return { webhookId: res.body.id };
  },
  cases: [
    { name: '/projects/{projectId}/webhooks', method: 'POST', path: (ids) => `/projects/${ids.projectId}/webhooks`, body: endpoint },
    { name: '/projects/{projectId}/webhooks', method: 'GET', path: (ids) => `/projects/${ids.projectId}/webhooks` },
    { name: '/projects/{projectId}/webhooks/{webhookId}', method: 'GET', path: (ids) => `/projects/${ids.projectId}/webhooks/${ids.webhookId}` },
    { name: '/projects/{projectId}/webhooks/{webhookId}', method: 'PUT', path: (ids) => `/projects/${ids.projectId}/webhooks/${ids.webhookId}`, body: () => ({ url: 'https://evil.example.com/', enabled: false }) },
    { name: '/projects/{projectId}/webhooks/{webhookId}/rotate-secret', method: 'POST', path: (ids) => `/projects/${ids.projectId}/webhooks/${ids.webhookId}/rotate-secret` },
    { name: '/projects/{projectId}/webhooks/{webhookId}/test', method: 'POST', path: (ids) => `/projects/${ids.projectId}/webhooks/${ids.webhookId}/test` },
    { name: '/projects/{projectId}/webhooks/{webhookId}/deliveries', method: 'GET', path: (ids) => `/projects/${ids.projectId}/webhooks/${ids.webhookId}/deliveries` },
    { name: '/projects/{projectId}/webhooks/{webhookId}', method: 'DELETE', path: (ids) => `/projects/${ids.projectId}/webhooks/${ids.webhookId}` },
    // The victim's webhook id under the stranger's own project, where the stranger is admin: still 404.
    { name: '{strangerProjectId}/webhooks/{victim webhookId}', method: 'GET', path: (ids) => `/projects/${ids.strangerProjectId}/webhooks/${ids.webhookId}` },
    { name: '{strangerProjectId}/webhooks/{victim webhookId}', method: 'PUT', path: (ids) => `/projects/${ids.strangerProjectId}/webhooks/${ids.webhookId}`, body: () => ({ enabled: false }) },
    { name: '{strangerProjectId}/webhooks/{victim webhookId}/rotate-secret', method: 'POST', path: (ids) => `/projects/${ids.strangerProjectId}/webhooks/${ids.webhookId}/rotate-secret` },
    { name: '{strangerProjectId}/webhooks/{victim webhookId}/test', method: 'POST', path: (ids) => `/projects/${ids.strangerProjectId}/webhooks/${ids.webhookId}/test` },
    { name: '{strangerProjectId}/webhooks/{victim webhookId}/deliveries', method: 'GET', path: (ids) => `/projects/${ids.strangerProjectId}/webhooks/${ids.webhookId}/deliveries` },
    { name: '{strangerProjectId}/webhooks/{victim webhookId}', method: 'DELETE', path: (ids) => `/projects/${ids.strangerProjectId}/webhooks/${ids.webhookId}` },
  ],
  async verify(h, ids) {
    const row = await h.db.webhookEndpoint.findUniqueOrThrow({ where: { id: ids.webhookId } });
    expect(row).toMatchObject({ url: 'https://hooks.example.com/victim', enabled: true, previousSecret: null, events: ['notification.completed'] });
    expect(await h.db.webhookDelivery.count({ where: { endpointId: ids.webhookId } })).toBe(0);
    expect(await h.db.webhookEndpoint.count({ where: { projectId: ids.projectId } })).toBe(1);
  },
};
