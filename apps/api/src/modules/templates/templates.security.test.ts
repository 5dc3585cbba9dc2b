import { createApiKey, expectError, startApi, tenant, type Harness, type Tenant } from '@herald/testing';

let h: Harness;
let victim: Tenant;
let stranger: Tenant;
let template: { id: string; name: string; title: string; body: string; data: unknown; updatedAt: string };
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

beforeAll(async () => {
  h = await startApi();
  victim = await tenant(h);
  stranger = await tenant(h);
  const res = await h.post('/push-templates', {
    token: victim.owner.accessToken,
    body: { projectId: victim.project.id, name: 'victim', title: 'Secret {{x}}', body: 'Victim body', data: { secret: 'victim' } },
  });
  template = res.body;
});
afterAll(() => h.close());

const stored = () => h.db.pushTemplate.findUniqueOrThrow({ where: { id: template.id } });

describe('a foreign API key never touches the victim template', () => {
  it('PUT: 403 naming the victim project, 404 in its own project, whatever the body says', async () => {
    const before = await stored();
    const attempts = [
      { query: { projectId: victim.project.id }, body: { title: 'Pwned' } },
      { query: undefined, body: { title: 'Pwned' } },
      { query: { projectId: stranger.project.id }, body: { title: 'Pwned' } },
      { query: undefined, body: { projectId: victim.project.id, title: 'Pwned' } },
      { query: undefined, body: { projectId: stranger.project.id, name: 'stolen' } },
    ];
    const statuses = [];
    for (const { query, body } of attempts) {
      const res = await h.put(`/push-templates/${template.id}`, { apiKey: stranger.apiKey.key, query, body });
      statuses.push(res.status);
      expect(res.text).not.toContain('Victim body');
    }
    expect(statuses).toEqual([403, 404, 404, 404, 404]);
    expect(await stored()).toEqual(before);
  });

  it('preview: 403 naming the victim project, 404 otherwise, and never the rendered text', async () => {
    const withVictim = await h.post('/push-templates/preview', { apiKey: stranger.apiKey.key, body: { templateId: template.id, projectId: victim.project.id, variables: { x: 1 } } });
    expectError(withVictim, 403);
    const own = await h.post('/push-templates/preview', { apiKey: stranger.apiKey.key, body: { templateId: template.id, variables: { x: 1 } } });
    expectError(own, 404, 'Template not found');
    expect(withVictim.text + own.text).not.toContain('Secret');
  });

  it("the victim's own key works, and a disabled key gets 401", async () => {
    const res = await h.post('/push-templates/preview', { apiKey: victim.apiKey.key, body: { templateId: template.id, variables: { x: 'ok' } } });
    expect(res.body.title).toBe('Secret ok');
    const disabled = await createApiKey(h, victim.project.id, false);
    expectError(await h.put(`/push-templates/${template.id}`, { apiKey: disabled.key, body: { title: 'x' } }), 401, 'API key is disabled');
    expectError(await h.post('/push-templates/preview', { apiKey: 'hrld_unknown', body: { templateId: template.id } }), 401, 'Invalid API key');
  });
});

describe('a stranger with a JWT', () => {
  it("gets the same 404 for the victim's template as for an unknown id (no existence oracle)", async () => {
    const token = stranger.owner.accessToken;
    for (const path of ['', '/variables']) {
      const foreign = await h.get(`/push-templates/${template.id}${path}`, { token });
      const unknown = await h.get(`/push-templates/${UNKNOWN_ID}${path}`, { token });
      expect(foreign.status).toBe(404);
      expect(foreign.body).toEqual(unknown.body);
    }
    const del = await h.delete(`/push-templates/${template.id}`, { token });
    expect(del.body).toEqual((await h.delete(`/push-templates/${UNKNOWN_ID}`, { token })).body);
    expect(await stored()).toMatchObject({ title: 'Secret {{x}}' });
  });

  it('cannot update through its own project, nor list, export or import into the victim project', async () => {
    const token = stranger.owner.accessToken;
    expectError(await h.put(`/push-templates/${template.id}`, { token, query: { projectId: stranger.project.id }, body: { title: 'Pwned' } }), 404, 'Template not found');
    expectError(await h.put(`/push-templates/${template.id}`, { token, query: { projectId: victim.project.id }, body: { title: 'Pwned' } }), 404);
    const list = await h.get('/push-templates', { token });
    expect(list.text).not.toContain(template.id);
    expectError(await h.get(`/push-templates/export/${victim.project.id}`, { token }), 404);
    expect(await stored()).toMatchObject({ title: 'Secret {{x}}', body: 'Victim body' });
  });
});
