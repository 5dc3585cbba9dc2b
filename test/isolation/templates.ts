import type { IsolationCase, IsolationTable } from './types';

const importForm = () => {
  const form = new FormData();
  const file = { templates: [{ name: 'intruder', title: 'Pwned', body: 'Pwned' }] };
  form.append('file', new Blob([JSON.stringify(file)], { type: 'application/json' }), 'templates.json');
  return form;
};
const victimProject = (ids: Record<string, string>) => ({ projectId: ids.projectId });
const ownProject = (ids: Record<string, string>) => ({ projectId: ids.strangerProjectId });

/**
 * Push templates. PUT and preview accept API keys: a foreign key must get 403 when it
 * names the victim's project and 404 when it looks for the victim's template in its own.
 */
export const templatesTable: IsolationTable = {
  async setup(h, victim) {
    const res = await h.post('/push-templates', {
      token: victim.owner.accessToken,
      body: { projectId: victim.project.id, name: 'victim-template', title: `Secret of ${victim.project.name} {{x}}`, body: 'Victim body', data: { secret: 'victim' } },
    });
    if (res.status !== 201) throw new Error(`templates setup failed: ${res.text}`);
    return { templateId: res.body.id };
  },
  cases: [
    { name: '/push-templates?projectId', method: 'GET', path: () => '/push-templates', query: victimProject },
    { name: '/push-templates (create in the victim project)', method: 'POST', path: () => '/push-templates', body: (ids) => ({ projectId: ids.projectId, name: 'intruder', title: 't', body: 'b' }) },
    { name: '/push-templates/project/{projectId}', method: 'GET', path: (ids) => `/push-templates/project/${ids.projectId}` },
    { name: '/push-templates/{id}', method: 'GET', path: (ids) => `/push-templates/${ids.templateId}` },
    { name: '/push-templates/{id}/variables', method: 'GET', path: (ids) => `/push-templates/${ids.templateId}/variables` },
    { name: '/push-templates/{id}?projectId=victim', method: 'PUT', path: (ids) => `/push-templates/${ids.templateId}`, query: victimProject, body: () => ({ title: 'Pwned' }), acceptsKey: true },
    { name: '/push-templates/{id}?projectId=own', method: 'PUT', path: (ids) => `/push-templates/${ids.templateId}`, query: ownProject, body: () => ({ title: 'Pwned' }), acceptsKey: true },
    {
      name: '/push-templates/{id} moving it into the own project',
      method: 'PUT',
      path: (ids) => `/push-templates/${ids.templateId}`,
      query: ownProject,
      body: (ids) => ({ projectId: ids.strangerProjectId, title: 'Pwned' }),
      acceptsKey: true,
    },
    { name: '/push-templates/preview (victim project)', method: 'POST', path: () => '/push-templates/preview', body: (ids) => ({ templateId: ids.templateId, projectId: ids.projectId, variables: {} }), acceptsKey: true },
    { name: '/push-templates/preview (own project)', method: 'POST', path: () => '/push-templates/preview', body: (ids) => ({ templateId: ids.templateId, projectId: ids.strangerProjectId, variables: {} }), acceptsKey: true },
    { name: '/push-templates/export/{projectId}', method: 'GET', path: (ids) => `/push-templates/export/${ids.projectId}` },
    { name: '/push-templates/import/{projectId}', method: 'POST', path: (ids) => `/push-templates/import/${ids.projectId}`, query: () => ({ mode: 'overwrite' }), form: importForm },
    { name: '/push-templates/{id}', method: 'DELETE', path: (ids) => `/push-templates/${ids.templateId}` },
  ] satisfies IsolationCase[],
};
