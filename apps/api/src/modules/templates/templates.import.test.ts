import { addMember, createProject, expectError, startApi, tenant, unique, type Harness, type Tenant } from '@herald/testing';

let h: Harness;
beforeAll(async () => {
  h = await startApi();
});
afterAll(() => h.close());

interface UploadOptions {
  type?: string;
  field?: string;
  mode?: string;
  token?: string;
}

function upload(t: Tenant, projectId: string, content: unknown, opts: UploadOptions = {}) {
  const form = new FormData();
  const text = typeof content === 'string' ? content : JSON.stringify(content);
  form.append(opts.field ?? 'file', new Blob([text], { type: opts.type ?? 'application/json' }), 'templates.json');
  return h.post(`/push-templates/import/${projectId}`, { raw: form, token: opts.token ?? t.owner.accessToken, query: opts.mode ? { mode: opts.mode } : undefined });
}

async function seed(t: Tenant, projectId = t.project.id) {
  const created = [];
  for (const [i, extra] of [{ data: { screen: 'orders', n: 1 } }, {}, { data: { deep: { a: [1, 'x'] } } }].entries()) {
    const res = await h.post('/push-templates', {
      token: t.owner.accessToken,
      body: { projectId, name: `tpl-${i}-${unique()}`, title: `Title ${i} {{name}}`, body: `Body ${i} {{user.id}}`, ...extra },
    });
    created.push(res.body);
  }
  return created;
}

const content = (x: { name: string; title: string; body: string; data: unknown }) => ({ name: x.name, title: x.title, body: x.body, data: x.data });
const countIn = (projectId: string) => h.db.pushTemplate.count({ where: { projectId } });

describe('GET /push-templates/export/{projectId}', () => {
  it("returns the project's templates with the project's id and name", async () => {
    const t = await tenant(h);
    const templates = await seed(t);
    const res = await h.get(`/push-templates/export/${t.project.id}`, { token: t.owner.accessToken });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      templates: expect.any(Array),
      exportedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      projectId: t.project.id,
      projectName: t.project.name,
      totalTemplates: 3,
    });
    expect([...res.body.templates].sort((a, b) => a.name.localeCompare(b.name))).toEqual([...templates].sort((a, b) => a.name.localeCompare(b.name)));
  });

  it('is 404 for a project the caller is not in and 400 for a malformed id', async () => {
    const t = await tenant(h);
    const other = await tenant(h);
    expectError(await h.get(`/push-templates/export/${other.project.id}`, { token: t.owner.accessToken }), 404);
    expectError(await h.get('/push-templates/export/not-a-uuid', { token: t.owner.accessToken }), 400);
  });
});

describe('POST /push-templates/import/{projectId}', () => {
  it('imports an export of one project into another: the same templates with new ids', async () => {
    const t = await tenant(h);
    const source = await seed(t);
    const target = await createProject(h, t.owner);
    const exported = (await h.get(`/push-templates/export/${t.project.id}`, { token: t.owner.accessToken })).body;

    const res = await upload(t, target.id, exported);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ imported: 3, updated: 0, skipped: 0, templates: expect.any(Array) });
    expect(res.body.templates).toHaveLength(3);
    for (const tpl of res.body.templates) {
      expect(tpl.projectId).toBe(target.id);
      expect(source.map((s) => s.id)).not.toContain(tpl.id);
    }
    const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
    const reexported = (await h.get(`/push-templates/export/${target.id}`, { token: t.owner.accessToken })).body;
    expect(reexported.templates.map(content).sort(byName)).toEqual(source.map(content).sort(byName));
    expect(reexported.projectId).toBe(target.id);
    // the source project is untouched
    expect(await countIn(t.project.id)).toBe(3);
  });

  it('skip mode (the default) keeps existing names as they are; a re-import imports nothing', async () => {
    const t = await tenant(h);
    const source = await seed(t);
    const exported = (await h.get(`/push-templates/export/${t.project.id}`, { token: t.owner.accessToken })).body;
    exported.templates[0].title = 'Changed {{name}}';
    exported.templates.push({ name: unique('new'), title: 'New', body: 'Body' });

    const res = await upload(t, t.project.id, exported);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ imported: 1, updated: 0, skipped: 3 });
    expect(res.body.templates.map((x: { name: string }) => x.name)).toEqual([exported.templates[3].name]);
    const kept = await h.get(`/push-templates/${source[0].id}`, { token: t.owner.accessToken });
    expect(kept.body).toEqual(source[0]);

    const again = await upload(t, t.project.id, exported, { mode: 'skip' });
    expect(again.body).toEqual({ imported: 0, updated: 0, skipped: 4, templates: [] });
    expect(await countIn(t.project.id)).toBe(4);
  });

  it('overwrite mode updates templates of the same name in place and creates the rest', async () => {
    const t = await tenant(h);
    const source = await seed(t);
    const exported = (await h.get(`/push-templates/export/${t.project.id}`, { token: t.owner.accessToken })).body;
    for (const x of exported.templates) {
      x.title = `Overwritten ${x.name}`;
      x.data = { v: 2 };
      x.id = '00000000-0000-4000-8000-000000000000'; // ids in the file are ignored
    }
    const extra = { name: unique('extra'), title: 'Extra', body: 'B', data: null };
    exported.templates.push(extra);

    const res = await upload(t, t.project.id, exported, { mode: 'overwrite' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ imported: 1, updated: 3, skipped: 0 });
    expect(res.body.templates).toHaveLength(4);
    for (const s of source) {
      const now = await h.get(`/push-templates/${s.id}`, { token: t.owner.accessToken });
      expect(now.body).toMatchObject({ id: s.id, name: s.name, title: `Overwritten ${s.name}`, body: s.body, data: { v: 2 } });
    }
    expect(res.body.templates.find((x: { name: string }) => x.name === extra.name)).toMatchObject({ title: 'Extra', data: {}, projectId: t.project.id });
  });

  it("ignores the file's projectId and is open to any member", async () => {
    const t = await tenant(h);
    const other = await tenant(h);
    const member = await h.user();
    await addMember(h, t.project.id, member);
    const file = { projectId: other.project.id, projectName: 'x', templates: [{ id: 'x', projectId: other.project.id, name: unique(), title: 't', body: 'b' }] };
    const res = await upload(t, t.project.id, file, { token: member.accessToken });
    expect(res.status).toBe(201);
    expect(res.body.templates[0].projectId).toBe(t.project.id);
    expect(await countIn(other.project.id)).toBe(0);
  });

  it('a file with one bad entry imports nothing and names the entry', async () => {
    const t = await tenant(h);
    const good = (i: number) => ({ name: `good-${i}-${unique()}`, title: 'T {{x}}', body: 'B' });
    const cases: [unknown[], string | RegExp][] = [
      [[good(0), good(1), good(2), { name: 'bad', body: 'B' }], /^Invalid import file: templates\.3\.title: /],
      [[good(0), good(1), { name: 'bad', title: 'ok', body: 'Hi {{name' }], /^Invalid import file: templates\.2\.body: Parse error on line 1/],
      [[good(0), { name: 'x', title: 't', body: 'b', data: [1] }], /^Invalid import file: templates\.1\.data: /],
      [[{ name: 'same', title: 't', body: 'b' }, { name: 'same', title: 't', body: 'b' }], 'Invalid import file: templates.1.name: duplicate name "same" (also templates.0.name)'],
      [[good(0), 'not an object'], /^Invalid import file: templates\.1: /],
    ];
    for (const [templates, message] of cases) {
      const res = await upload(t, t.project.id, { templates });
      expectError(res, 400, message);
      expect(res.body.details[0].path).toMatch(/^templates\.\d/);
    }
    expectError(await upload(t, t.project.id, { nothing: [] }), 400, /^Invalid import file: templates: /);
    expectError(await upload(t, t.project.id, [1, 2]), 400, /^Invalid import file/);
    expect(await countIn(t.project.id)).toBe(0);
  });

  it('refuses a file part that is not application/json with 415', async () => {
    const t = await tenant(h);
    const res = await upload(t, t.project.id, { templates: [] }, { type: 'text/plain' });
    expectError(res, 415, 'The import file must have the MIME type application/json (got text/plain)');
    expect(res.body.error).toBe('Unsupported Media Type');
  });

  it('refuses a file over 1 MiB with 413', async () => {
    const t = await tenant(h);
    const big = JSON.stringify({ templates: [], padding: 'x'.repeat(1024 * 1024) });
    const res = await upload(t, t.project.id, big);
    expectError(res, 413, /at most 1048576 bytes/);
    expect(res.body.error).toBe('Payload Too Large');
    // exactly 1 MiB is accepted
    const exact = JSON.stringify({ templates: [], padding: '' });
    const padded = exact.replace('"padding":""', `"padding":"${'x'.repeat(1024 * 1024 - exact.length)}"`);
    expect(Buffer.byteLength(padded)).toBe(1024 * 1024);
    expect((await upload(t, t.project.id, padded)).status).toBe(201);
  });

  it('answers 400 for invalid JSON, a missing file part, a wrong field name and a malformed body', async () => {
    const t = await tenant(h);
    const path = `/push-templates/import/${t.project.id}`;
    const notJson = await upload(t, t.project.id, '{"templates": [');
    expectError(notJson, 400, 'The import file is not valid JSON');
    // The file part is named as a validation error's field is.
    expect(notJson.body.details).toEqual([{ path: 'file', message: 'The import file is not valid JSON' }]);

    const noFile = new FormData();
    noFile.append('other', 'value');
    expectError(await h.post(path, { raw: noFile, token: t.owner.accessToken }), 400, /^Missing the file part "file"/);
    const asText = new FormData();
    asText.append('file', JSON.stringify({ templates: [] }));
    expectError(await h.post(path, { raw: asText, token: t.owner.accessToken }), 400, /^Missing the file part "file"/);

    expectError(await upload(t, t.project.id, { templates: [] }, { field: 'upload' }), 400, 'Send exactly one file, in the part "file" (got "upload")');
    const two = new FormData();
    two.append('file', new Blob(['{"templates":[]}'], { type: 'application/json' }), 'a.json');
    two.append('file', new Blob(['{"templates":[]}'], { type: 'application/json' }), 'b.json');
    expectError(await h.post(path, { raw: two, token: t.owner.accessToken }), 400, /^Send exactly one file/);

    const broken = await h.post(path, { raw: '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.json"\r\nContent-Type: application/json\r\n\r\n{"tem', contentType: 'multipart/form-data; boundary=xyz', token: t.owner.accessToken });
    expectError(broken, 400, /^Malformed multipart body/);
    const noBoundary = await h.post(path, { raw: 'hello', contentType: 'multipart/form-data', token: t.owner.accessToken });
    expectError(noBoundary, 400, /^Malformed multipart body/);
    expect(await countIn(t.project.id)).toBe(0);
  });

  it('refuses a request that is not multipart with 415', async () => {
    const t = await tenant(h);
    const path = `/push-templates/import/${t.project.id}`;
    expectError(await h.post(path, { body: { templates: [] }, token: t.owner.accessToken }), 415, /^Content-Type must be multipart\/form-data/);
    expectError(await h.post(path, { token: t.owner.accessToken }), 415);
  });

  it("answers a caller outside the project 404 before it reads the upload, whatever the file", async () => {
    const t = await tenant(h);
    const stranger = await tenant(h);
    expectError(await upload(stranger, t.project.id, 'plain text', { type: 'text/plain' }), 404);
    expectError(await upload(stranger, t.project.id, `{"templates":[],"pad":"${'x'.repeat(1024 * 1024)}"}`), 404);
    expect(await countIn(t.project.id)).toBe(0);
  });

  it('checks mode, the project id, membership and authentication', async () => {
    const t = await tenant(h);
    const other = await tenant(h);
    expectError(await upload(t, t.project.id, { templates: [] }, { mode: 'merge' }), 400, 'Invalid query: mode: mode must be skip or overwrite');
    expectError(await upload(t, other.project.id, { templates: [{ name: 'n', title: 't', body: 'b' }] }), 404);
    expect(await countIn(other.project.id)).toBe(0);
    expectError(await upload(t, 'nope', { templates: [] }), 400);
    const form = new FormData();
    form.append('file', new Blob(['{"templates":[]}'], { type: 'application/json' }), 'a.json');
    expectError(await h.post(`/push-templates/import/${t.project.id}`, { raw: form }), 401);
    const keyed = new FormData();
    keyed.append('file', new Blob(['{"templates":[]}'], { type: 'application/json' }), 'a.json');
    expectError(await h.post(`/push-templates/import/${t.project.id}`, { raw: keyed, apiKey: t.apiKey.key }), 401);
  });
});
