import { addMember, createProject, expectError, startApi, tenant, unique, type Harness, type Tenant } from '@herald/testing';

let h: Harness;
beforeAll(async () => {
  h = await startApi();
});
afterAll(() => h.close());

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

async function createTemplate(t: Tenant, overrides: Record<string, unknown> = {}) {
  const res = await h.post('/push-templates', {
    token: t.owner.accessToken,
    body: { projectId: t.project.id, name: unique('tpl'), title: 'Hi {{name}}', body: 'Your order {{order.id}} shipped', ...overrides },
  });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
  return res.body;
}

describe('POST /push-templates', () => {
  it('creates a template and returns it; data defaults to {}', async () => {
    const t = await tenant(h);
    const name = unique('welcome');
    const res = await h.post('/push-templates', { token: t.owner.accessToken, body: { projectId: t.project.id, name, title: 'Hi {{ name }}', body: 'Welcome' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      projectId: t.project.id,
      name,
      title: 'Hi {{ name }}',
      body: 'Welcome',
      data: {},
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    });
    const withData = await createTemplate(t, { data: { screen: 'orders', count: 2, nested: { a: [1, 'b'] }, off: false } });
    expect(withData.data).toEqual({ screen: 'orders', count: 2, nested: { a: [1, 'b'] }, off: false });
  });

  it('is open to any member, not only admins', async () => {
    const t = await tenant(h);
    const member = await h.user();
    await addMember(h, t.project.id, member, 'team_member');
    const res = await h.post('/push-templates', { token: member.accessToken, body: { projectId: t.project.id, name: unique(), title: 't', body: 'b' } });
    expect(res.status).toBe(201);
  });

  it('refuses a duplicate name within a project with 409, but allows it in another project', async () => {
    const t = await tenant(h);
    const tpl = await createTemplate(t);
    expectError(await h.post('/push-templates', { token: t.owner.accessToken, body: { projectId: t.project.id, name: tpl.name, title: 'x', body: 'y' } }), 409);
    const other = await createProject(h, t.owner);
    const res = await h.post('/push-templates', { token: t.owner.accessToken, body: { projectId: other.id, name: tpl.name, title: 'x', body: 'y' } });
    expect(res.status).toBe(201);
  });

  it('refuses missing and invalid fields with 400 and details', async () => {
    const t = await tenant(h);
    const res = await h.post('/push-templates', { token: t.owner.accessToken, body: { projectId: t.project.id, title: 5 } });
    expectError(res, 400);
    expect(res.body.details.map((d: { path: string }) => d.path).sort()).toEqual(['body', 'name', 'title']);
    expectError(await h.post('/push-templates', { token: t.owner.accessToken, body: { name: 'n', title: 't', body: 'b' } }), 400, /projectId/);
    expectError(await h.post('/push-templates', { token: t.owner.accessToken, body: { projectId: 'nope', name: 'n', title: 't', body: 'b' } }), 400);
    for (const data of [[1, 2], 'x', 3]) {
      expectError(await h.post('/push-templates', { token: t.owner.accessToken, body: { projectId: t.project.id, name: unique(), title: 't', body: 'b', data } }), 400);
    }
  });

  it('caps the lengths of name, title, body and data', async () => {
    const t = await tenant(h);
    const base = { projectId: t.project.id, name: unique(), title: 't', body: 'b' };
    const post = (body: Record<string, unknown>) => h.post('/push-templates', { token: t.owner.accessToken, body: { ...base, ...body } });
    expectError(await post({ name: 'n'.repeat(201) }), 400, 'Invalid request body: name: name must be at most 200 characters');
    expectError(await post({ title: 't'.repeat(1001) }), 400, 'Invalid request body: title: title must be at most 1000 characters');
    expectError(await post({ body: 'b'.repeat(4001) }), 400, 'Invalid request body: body: body must be at most 4000 characters');
    expectError(await post({ data: { big: 'x'.repeat(4100) } }), 400, /data must be at most 4096 bytes/);
    expectError(await post({ data: { from: 'x' } }), 400, /reserved by FCM/);
    expectError(await post({ name: '   ' }), 400, /name is required/);
    expect((await post({ name: 'n'.repeat(200), title: 't'.repeat(1000), body: 'b'.repeat(4000) })).status).toBe(201);
  });

  it("refuses a template that does not parse with 400 and the parser's message", async () => {
    const t = await tenant(h);
    const res = await h.post('/push-templates', { token: t.owner.accessToken, body: { projectId: t.project.id, name: unique(), title: 'Hi {{name', body: 'b' } });
    expectError(res, 400, /^Invalid template title: Parse error on line 1/);
    expect(res.body.details).toEqual([{ path: 'title', message: expect.stringMatching(/^Parse error on line 1/) }]);
    expectError(
      await h.post('/push-templates', { token: t.owner.accessToken, body: { projectId: t.project.id, name: unique(), title: 't', body: '{{#if a}}x{{/each}}' } }),
      400,
      "Invalid template body: if doesn't match each - 1:3",
    );
    expectError(
      await h.post('/push-templates', { token: t.owner.accessToken, body: { projectId: t.project.id, name: unique(), title: '{{shout name}}', body: 'b' } }),
      400,
      /^Invalid template title: unknown helper "shout"/,
    );
  });

  it('needs a JWT', async () => {
    const t = await tenant(h);
    expectError(await h.post('/push-templates', { body: { projectId: t.project.id, name: 'n', title: 't', body: 'b' } }), 401, 'Missing or invalid authorization header');
    expectError(await h.post('/push-templates', { apiKey: t.apiKey.key, body: { projectId: t.project.id, name: 'n', title: 't', body: 'b' } }), 401);
  });
});

describe('GET /push-templates/{id} and DELETE', () => {
  it('reads one template and deletes it', async () => {
    const t = await tenant(h);
    const tpl = await createTemplate(t);
    const got = await h.get(`/push-templates/${tpl.id}`, { token: t.owner.accessToken });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(tpl);
    const del = await h.delete(`/push-templates/${tpl.id}`, { token: t.owner.accessToken });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ message: 'Template deleted' });
    expectError(await h.get(`/push-templates/${tpl.id}`, { token: t.owner.accessToken }), 404, 'Template not found');
    expectError(await h.delete(`/push-templates/${tpl.id}`, { token: t.owner.accessToken }), 404, 'Template not found');
  });

  it('answers 400 for a malformed id and 404 for an unknown one', async () => {
    const t = await tenant(h);
    expectError(await h.get('/push-templates/not-a-uuid', { token: t.owner.accessToken }), 400);
    expectError(await h.delete('/push-templates/not-a-uuid', { token: t.owner.accessToken }), 400);
    expectError(await h.get('/push-templates/00000000-0000-4000-8000-000000000000', { token: t.owner.accessToken }), 404, 'Template not found');
  });
});

describe('PUT /push-templates/{id}', () => {
  it('updates with a JWT and ?projectId', async () => {
    const t = await tenant(h);
    const tpl = await createTemplate(t);
    const res = await h.put(`/push-templates/${tpl.id}`, { token: t.owner.accessToken, query: { projectId: t.project.id }, body: { title: 'New {{x}}', data: { k: 'v' } } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...tpl, title: 'New {{x}}', data: { k: 'v' }, updatedAt: expect.stringMatching(ISO) });
    expect(new Date(res.body.updatedAt).getTime()).toBeGreaterThanOrEqual(new Date(tpl.updatedAt).getTime());
    const cleared = await h.put(`/push-templates/${tpl.id}`, { token: t.owner.accessToken, query: { projectId: t.project.id }, body: { data: null } });
    expect(cleared.body.data).toEqual({});
  });

  it('with a JWT, needs the projectId query parameter (400)', async () => {
    const t = await tenant(h);
    const tpl = await createTemplate(t);
    expectError(await h.put(`/push-templates/${tpl.id}`, { token: t.owner.accessToken, body: { title: 'x' } }), 400, 'projectId query parameter is required');
    expect((await h.get(`/push-templates/${tpl.id}`, { token: t.owner.accessToken })).body.title).toBe(tpl.title);
  });

  it("updates with the project's API key, with or without the key's own projectId", async () => {
    const t = await tenant(h);
    const tpl = await createTemplate(t);
    const res = await h.put(`/push-templates/${tpl.id}`, { apiKey: t.apiKey.key, body: { body: 'By key {{y}}' } });
    expect(res.status).toBe(200);
    expect(res.body.body).toBe('By key {{y}}');
    const res2 = await h.put(`/push-templates/${tpl.id}`, { apiKey: t.apiKey.key, query: { projectId: t.project.id }, body: { name: 'renamed-' + tpl.name } });
    expect(res2.status).toBe(200);
    expect(res2.body.name).toBe('renamed-' + tpl.name);
  });

  it('with an API key, a projectId naming another project gets 403', async () => {
    const t = await tenant(h);
    const other = await tenant(h);
    const tpl = await createTemplate(t);
    expectError(await h.put(`/push-templates/${tpl.id}`, { apiKey: t.apiKey.key, query: { projectId: other.project.id }, body: { title: 'x' } }), 403);
  });

  it('refuses to move a template to another project: 400 projectId cannot be updated', async () => {
    const t = await tenant(h);
    const other = await createProject(h, t.owner);
    const tpl = await createTemplate(t);
    const res = await h.put(`/push-templates/${tpl.id}`, { token: t.owner.accessToken, query: { projectId: t.project.id }, body: { projectId: other.id, title: 'moved' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ statusCode: 400, message: 'projectId cannot be updated', error: 'Bad Request', details: [{ path: 'projectId', message: 'projectId cannot be updated' }] });
    expectError(await h.put(`/push-templates/${tpl.id}`, { apiKey: t.apiKey.key, body: { projectId: other.id } }), 400, 'projectId cannot be updated');
    expect((await h.get(`/push-templates/${tpl.id}`, { token: t.owner.accessToken })).body).toEqual(tpl);
    const same = await h.put(`/push-templates/${tpl.id}`, { token: t.owner.accessToken, query: { projectId: t.project.id }, body: { projectId: t.project.id, title: 'same project' } });
    expect(same.status).toBe(200);
    expect(same.body.title).toBe('same project');
    // Its own id in upper case is no move either.
    expect((await h.put(`/push-templates/${tpl.id}`, { apiKey: t.apiKey.key, body: { projectId: t.project.id.toUpperCase(), title: 'same, upper case' } })).status).toBe(200);
  });

  it('answers 409 for a name taken in the project, 400 for a broken template, 200 unchanged for an empty body', async () => {
    const t = await tenant(h);
    const a = await createTemplate(t);
    const b = await createTemplate(t);
    const put = (body: unknown) => h.put(`/push-templates/${b.id}`, { token: t.owner.accessToken, query: { projectId: t.project.id }, body });
    expectError(await put({ name: a.name }), 409);
    expectError(await put({ body: '{{#each}}{{/each}}' }), 400, /^Invalid template body: /);
    expectError(await put({ title: '' }), 400, /title is required/);
    const same = await put({});
    expect(same.status).toBe(200);
    expect(same.body).toEqual(b);
  });

  it('answers 404 for an unknown id in the project', async () => {
    const t = await tenant(h);
    expectError(await h.put('/push-templates/00000000-0000-4000-8000-000000000000', { apiKey: t.apiKey.key, body: { title: 'x' } }), 404, 'Template not found');
  });
});

describe('lists', () => {
  it('paginates a project: meta, the default limit of 50 and the cap of 100', async () => {
    const t = await tenant(h);
    await h.db.pushTemplate.createMany({
      data: Array.from({ length: 105 }, (_, i) => ({ projectId: t.project.id, name: `bulk-${String(i).padStart(3, '0')}`, title: `T${i}`, body: 'b' })),
    });
    const first = await h.get(`/push-templates/project/${t.project.id}`, { token: t.owner.accessToken });
    expect(first.status).toBe(200);
    expect(first.body.meta).toEqual({ page: 1, limit: 50, total: 105, totalPages: 3 });
    expect(first.body.data).toHaveLength(50);
    expect(first.body.data[0]).toEqual({
      id: expect.any(String),
      projectId: t.project.id,
      name: expect.stringMatching(/^bulk-/),
      title: expect.any(String),
      body: 'b',
      data: {},
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    });
    const max = await h.get(`/push-templates/project/${t.project.id}`, { token: t.owner.accessToken, query: { limit: 100 } });
    expect(max.body.meta).toEqual({ page: 1, limit: 100, total: 105, totalPages: 2 });
    expect(max.body.data).toHaveLength(100);
    const last = await h.get(`/push-templates/project/${t.project.id}`, { token: t.owner.accessToken, query: { limit: 100, page: 2 } });
    expect(last.body.data).toHaveLength(5);
    const beyond = await h.get(`/push-templates/project/${t.project.id}`, { token: t.owner.accessToken, query: { page: 9 } });
    expect(beyond.body).toEqual({ data: [], meta: { page: 9, limit: 50, total: 105, totalPages: 3 } });
    const all = new Set([...max.body.data, ...last.body.data].map((x: { id: string }) => x.id));
    expect(all.size).toBe(105);

    const filtered = await h.get('/push-templates', { token: t.owner.accessToken, query: { projectId: t.project.id, page: 3, limit: 50 } });
    expect(filtered.body.meta).toEqual({ page: 3, limit: 50, total: 105, totalPages: 3 });
    expect(filtered.body.data).toHaveLength(5);
  });

  it('refuses limit 101 or 0, page 0 and non-numbers with 400', async () => {
    const t = await tenant(h);
    for (const path of ['/push-templates', `/push-templates/project/${t.project.id}`]) {
      expectError(await h.get(path, { token: t.owner.accessToken, query: { limit: 101 } }), 400, 'Invalid query: limit: limit must be at most 100');
      expectError(await h.get(path, { token: t.owner.accessToken, query: { limit: 0 } }), 400, 'Invalid query: limit: limit must be at least 1');
      expectError(await h.get(path, { token: t.owner.accessToken, query: { page: 0 } }), 400, 'Invalid query: page: page must be at least 1');
      expectError(await h.get(path, { token: t.owner.accessToken, query: { page: 'two' } }), 400);
      expectError(await h.get(path, { token: t.owner.accessToken, query: { limit: 1.5 } }), 400);
    }
  });

  it("without projectId, lists the templates of all the caller's projects and nobody else's", async () => {
    const me = await tenant(h);
    const second = await createProject(h, me.owner);
    const someoneElse = await tenant(h);
    const shared = await tenant(h);
    await addMember(h, shared.project.id, me.owner);
    const mine = [await createTemplate(me), await createTemplate(me, { projectId: second.id }), await createTemplate(shared)];
    const theirs = await createTemplate(someoneElse);
    const res = await h.get('/push-templates', { token: me.owner.accessToken });
    expect(res.status).toBe(200);
    expect(res.body.meta).toEqual({ page: 1, limit: 50, total: 3, totalPages: 1 });
    expect(res.body.data.map((x: { id: string }) => x.id).sort()).toEqual(mine.map((x) => x.id).sort());
    expect(res.text).not.toContain(theirs.id);
  });

  it('an empty list has totalPages 0; a projectId the caller is not in is 404', async () => {
    const t = await tenant(h);
    const res = await h.get('/push-templates', { token: t.owner.accessToken, query: { projectId: t.project.id } });
    expect(res.body).toEqual({ data: [], meta: { page: 1, limit: 50, total: 0, totalPages: 0 } });
    const other = await tenant(h);
    expectError(await h.get('/push-templates', { token: t.owner.accessToken, query: { projectId: other.project.id } }), 404);
    expectError(await h.get(`/push-templates/project/${other.project.id}`, { token: t.owner.accessToken }), 404);
    expectError(await h.get('/push-templates', { token: t.owner.accessToken, query: { projectId: 'x' } }), 400);
    expectError(await h.get('/push-templates/project/x', { token: t.owner.accessToken }), 400);
  });
});

describe('GET /push-templates/{id}/variables', () => {
  it('lists unique variables in first-appearance order, title then body, without helpers or this', async () => {
    const t = await tenant(h);
    const tpl = await createTemplate(t, {
      title: '{{ name }}, {{#if vip}}VIP{{/if}} {{user.name}}',
      body: '{{name}} {{#each items}}{{this}} {{title}}{{/each}} {{order.id}} {{lookup map key}}',
    });
    const res = await h.get(`/push-templates/${tpl.id}/variables`, { token: t.owner.accessToken });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ variables: ['name', 'vip', 'user.name', 'items', 'order.id', 'map', 'key'] });
  });

  it('answers 404 for an unknown template and 400 for a malformed id', async () => {
    const t = await tenant(h);
    expectError(await h.get('/push-templates/00000000-0000-4000-8000-000000000000/variables', { token: t.owner.accessToken }), 404, 'Template not found');
    expectError(await h.get('/push-templates/zzz/variables', { token: t.owner.accessToken }), 400);
  });
});

describe('POST /push-templates/preview', () => {
  it('renders verbatim with the variables and reports the missing ones (JWT, projectId in the body)', async () => {
    const t = await tenant(h);
    const tpl = await createTemplate(t, { title: 'Hi {{ name }}', body: '{{user.name}} & {{friend}} <3 {{ missing.deep }}', data: { screen: 'home' } });
    const res = await h.post('/push-templates/preview', {
      token: t.owner.accessToken,
      body: { templateId: tpl.id, projectId: t.project.id, variables: { name: 'Tom & Jerry <3', user: { name: 'Ann' } } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ title: 'Hi Tom & Jerry <3', body: 'Ann &  <3 ', data: { screen: 'home' }, missingVariables: ['friend', 'missing.deep'] });
  });

  it("works with the project's API key, with variables optional", async () => {
    const t = await tenant(h);
    const tpl = await createTemplate(t, { title: 'Hello {{name}}', body: 'static' });
    const res = await h.post('/push-templates/preview', { apiKey: t.apiKey.key, body: { templateId: tpl.id } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ title: 'Hello ', body: 'static', data: {}, missingVariables: ['name'] });
  });

  it('takes projectId from the query too, the body\'s first; a key naming another project is a 403', async () => {
    const t = await tenant(h);
    const other = await tenant(h);
    const tpl = await createTemplate(t, { title: 'Hello {{name}}', body: 'static' });
    const viaQuery = await h.post('/push-templates/preview', { token: t.owner.accessToken, query: { projectId: t.project.id }, body: { templateId: tpl.id, variables: { name: 'Q' } } });
    expect(viaQuery.status).toBe(200);
    expect(viaQuery.body.title).toBe('Hello Q');
    const bodyFirst = await h.post('/push-templates/preview', { token: t.owner.accessToken, query: { projectId: other.project.id }, body: { projectId: t.project.id, templateId: tpl.id } });
    expect(bodyFirst.status).toBe(200);
    expectError(await h.post('/push-templates/preview', { token: t.owner.accessToken, query: { projectId: other.project.id }, body: { templateId: tpl.id } }), 404, 'Project not found');
    expectError(await h.post('/push-templates/preview', { apiKey: t.apiKey.key, query: { projectId: other.project.id }, body: { templateId: tpl.id } }), 403);
    const ownInCapitals = await h.post('/push-templates/preview', { apiKey: t.apiKey.key, query: { projectId: t.project.id.toUpperCase() }, body: { templateId: tpl.id } });
    expect(ownInCapitals.status).toBe(200);
  });

  it('with a JWT needs projectId; checks templateId and variables', async () => {
    const t = await tenant(h);
    const tpl = await createTemplate(t);
    expectError(await h.post('/push-templates/preview', { token: t.owner.accessToken, body: { templateId: tpl.id, variables: {} } }), 400, 'projectId body field or query parameter is required');
    expectError(await h.post('/push-templates/preview', { apiKey: t.apiKey.key, body: { templateId: 'nope' } }), 400, /templateId/);
    expectError(await h.post('/push-templates/preview', { apiKey: t.apiKey.key, body: { variables: {} } }), 400, /templateId/);
    expectError(await h.post('/push-templates/preview', { apiKey: t.apiKey.key, body: { templateId: tpl.id, variables: ['a'] } }), 400, /variables/);
    expectError(await h.post('/push-templates/preview', { apiKey: t.apiKey.key, body: { templateId: '00000000-0000-4000-8000-000000000000' } }), 404, 'Template not found');
    expectError(await h.post('/push-templates/preview', { body: { templateId: tpl.id } }), 401);
  });
});
