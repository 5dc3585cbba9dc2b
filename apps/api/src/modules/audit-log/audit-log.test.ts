import { createProject, expectError, startApi, type Harness, type Session } from '@herald/testing';

/**
 * The audit log: what a change writes, how admins read, filter and export it, and how the chain shows
 * tampering. Which routes write entries is walked in audit-log.routes.test.ts.
 */

let h: Harness;
beforeAll(async () => {
  h = await startApi();
});
afterAll(() => h.close());

async function adminProject() {
  const admin = await h.user();
  const project = await createProject(h, admin);
  return { admin, project, base: `/projects/${project.id}/audit-log` };
}

/** Three changes: a template created and updated, an API key created. */
async function makeChanges(admin: Session, projectId: string) {
  const template = await h.post('/push-templates', { token: admin.accessToken, body: { projectId, name: 'welcome', title: 'Hi', body: 'Hello {{name}}' }, headers: { 'User-Agent': 'audit-test/1.0' } });
  expect(template.status).toBe(201);
  expect((await h.put(`/push-templates/${template.body.id}?projectId=${projectId}`, { token: admin.accessToken, body: { title: 'Hello' } })).status).toBe(200);
  const key = await h.post(`/projects/${projectId}/api-keys`, { token: admin.accessToken, body: { name: 'ci', scopes: ['send'] } });
  expect(key.status).toBe(201);
  return { templateId: template.body.id as string, key: key.body as { id: string; key: string } };
}

/** Runs `sql` as the table's owner with the append-only guard disabled, inside one transaction (no other session sees the guard off). */
async function tamper(sql: string, ...values: unknown[]) {
  await h.db.$transaction(async (tx) => {
    await tx.$executeRawUnsafe('ALTER TABLE "AuditEntry" DISABLE TRIGGER "AuditEntry_append_only"');
    await tx.$executeRawUnsafe(sql, ...values);
    await tx.$executeRawUnsafe('ALTER TABLE "AuditEntry" ENABLE TRIGGER "AuditEntry_append_only"');
  });
}

describe('audit entries', () => {
  it('records actor, action, target, the changed fields, IP, user agent and time; newest first', async () => {
    const { admin, project, base } = await adminProject();
    const { templateId, key } = await makeChanges(admin, project.id);
    const res = await h.get(base, { token: admin.accessToken });
    expect(res.status).toBe(200);
    expect(res.body.nextCursor).toBeNull();
    expect(res.body.data.map((e: { action: string }) => e.action)).toEqual(['api_key.created', 'template.updated', 'template.created']);
    const [keyEntry, updated, created] = res.body.data;
    expect(created).toMatchObject({
      number: 1,
      actor: { type: 'user', id: admin.id, email: admin.email },
      target: { type: 'template', id: templateId },
      changes: { name: { before: null, after: 'welcome' }, title: { before: null, after: 'Hi' } },
      ip: expect.stringMatching(/127\.0\.0\.1/),
      userAgent: 'audit-test/1.0',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    // Only what changed, before and after.
    expect(updated.changes).toEqual({ title: { before: 'Hi', after: 'Hello' } });
    // A secret is recorded only as changed; never the key or its hash.
    expect(keyEntry.changes).toMatchObject({ name: { before: null, after: 'ci' }, scopes: { before: null, after: ['send'] }, keyHash: 'changed' });
    expect(res.text).not.toContain(key.key);
  });

  it('records the API key that made a change, by id and name', async () => {
    const { admin, project, base } = await adminProject();
    const { templateId, key } = await makeChanges(admin, project.id);
    await h.patch(`/projects/${project.id}/api-keys/${key.id}`, { token: admin.accessToken, body: { scopes: ['templates:write'] } });
    expect((await h.put(`/push-templates/${templateId}`, { apiKey: key.key, body: { body: 'Bye' } })).status).toBe(200);
    const [entry] = (await h.get(`${base}?action=template.updated&limit=1`, { token: admin.accessToken })).body.data;
    expect(entry).toMatchObject({ actor: { type: 'apiKey', id: key.id, name: 'ci' }, changes: { body: { before: 'Hello {{name}}', after: 'Bye' } } });
  });

  it('filters by actor, action, target and time range; pages with a cursor', async () => {
    const { admin, project, base } = await adminProject();
    const { templateId, key } = await makeChanges(admin, project.id);
    const get = async (q: string) => (await h.get(`${base}?${q}`, { token: admin.accessToken })).body;
    const actions = (page: { data: { action: string }[] }) => page.data.map((e) => e.action);
    expect(actions(await get('action=template.created'))).toEqual(['template.created']);
    expect(actions(await get(`targetType=template&targetId=${templateId}`))).toEqual(['template.updated', 'template.created']);
    expect(actions(await get(`targetId=${key.id}`))).toEqual(['api_key.created']);
    expect(actions(await get(`actor=${admin.id}`))).toHaveLength(3);
    expect(actions(await get('actorType=apiKey'))).toEqual([]);
    expect(actions(await get(`from=${new Date(Date.now() + 60_000).toISOString()}`))).toEqual([]);
    expect(actions(await get(`from=${new Date(Date.now() - 60_000).toISOString()}&to=${new Date(Date.now() + 60_000).toISOString()}`))).toHaveLength(3);

    const first = await get('limit=2');
    expect(actions(first)).toEqual(['api_key.created', 'template.updated']);
    expect(first.nextCursor).toBe('2');
    const second = await get(`limit=2&cursor=${first.nextCursor}`);
    expect(actions(second)).toEqual(['template.created']);
    expect(second.nextCursor).toBeNull();
  });

  it('exports the filtered log as JSON Lines, oldest first', async () => {
    const { admin, project, base } = await adminProject();
    await makeChanges(admin, project.id);
    const res = await h.get(`${base}/export?targetType=template`, { token: admin.accessToken });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const lines = res.text.trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((e) => e.action)).toEqual(['template.created', 'template.updated']);
  });

  it('400 naming the field for an unknown action, a bad time or cursor', async () => {
    const { admin, base } = await adminProject();
    for (const [q, field] of [
      ['action=template.exploded', 'action'],
      ['from=yesterday', 'from'],
      [`from=${new Date().toISOString()}&to=${new Date(Date.now() - 1000).toISOString()}`, 'to'],
      ['cursor=abc', 'cursor'],
      ['limit=0', 'limit'],
      ['actorType=robot', 'actorType'],
    ]) {
      const res = await h.get(`${base}?${q}`, { token: admin.accessToken });
      expectError(res, 400);
      expect(res.body.details[0].path).toBe(field);
    }
    expectError(await h.get(`${base}/export?action=nope`, { token: admin.accessToken }), 400);
  });
});

describe('tamper evidence', () => {
  it('refuses UPDATE, DELETE and TRUNCATE, even to the table owner', async () => {
    const { admin, project } = await adminProject();
    await makeChanges(admin, project.id);
    await expect(h.db.$executeRaw`UPDATE "AuditEntry" SET "action" = 'x' WHERE "projectId" = ${project.id}::uuid`).rejects.toThrow(/append-only/);
    await expect(h.db.$executeRaw`DELETE FROM "AuditEntry" WHERE "projectId" = ${project.id}::uuid`).rejects.toThrow(/append-only/);
    await expect(h.db.$executeRawUnsafe('TRUNCATE "AuditEntry"')).rejects.toThrow(/append-only/);
    expect(await h.db.auditEntry.count({ where: { projectId: project.id } })).toBe(3);
  });

  it('verify: whole chain → valid', async () => {
    const { admin, project, base } = await adminProject();
    expect((await h.get(`${base}/verify`, { token: admin.accessToken })).body).toEqual({ valid: true, entries: 0 });
    await makeChanges(admin, project.id);
    expect((await h.get(`${base}/verify`, { token: admin.accessToken })).body).toEqual({ valid: true, entries: 3 });
  });

  it('verify names the entry an UPDATE changed, with the guard disabled', async () => {
    const { admin, project, base } = await adminProject();
    await makeChanges(admin, project.id);
    const second = await h.db.auditEntry.findFirstOrThrow({ where: { projectId: project.id, number: 2 } });
    await tamper(`UPDATE "AuditEntry" SET "changes" = '{"title":{"before":"Hi","after":"Hi"}}' WHERE "id" = $1::uuid`, second.id);
    expect((await h.get(`${base}/verify`, { token: admin.accessToken })).body).toEqual({ valid: false, entries: 3, brokenAt: { id: second.id, number: 2, reason: 'altered' } });
  });

  it('verify names the entry after one whose hash was recomputed to hide an edit', async () => {
    const { admin, project, base } = await adminProject();
    await makeChanges(admin, project.id);
    const [first, second] = await h.db.auditEntry.findMany({ where: { projectId: project.id }, orderBy: { number: 'asc' } });
    await tamper(`UPDATE "AuditEntry" SET "actorLabel" = 'someone@else.test' WHERE "id" = $1::uuid`, first.id);
    await tamper(`UPDATE "AuditEntry" e SET "hash" = herald_audit_hash('', e) WHERE "id" = $1::uuid`, first.id);
    // The first entry is consistent again on its own; the second no longer chains to it.
    expect((await h.get(`${base}/verify`, { token: admin.accessToken })).body.brokenAt).toEqual({ id: second.id, number: 2, reason: 'altered' });
  });

  it('verify names the entry after a deleted one', async () => {
    const { admin, project, base } = await adminProject();
    await makeChanges(admin, project.id);
    const third = await h.db.auditEntry.findFirstOrThrow({ where: { projectId: project.id, number: 3 } });
    await tamper(`DELETE FROM "AuditEntry" WHERE "projectId" = $1::uuid AND "number" = 2`, project.id);
    expect((await h.get(`${base}/verify`, { token: admin.accessToken })).body).toEqual({ valid: false, entries: 2, brokenAt: { id: third.id, number: 3, reason: 'entries missing before it' } });
  });
});

describe('access', () => {
  it('a team_member gets 403, a stranger 404, on every audit route', async () => {
    const { project, base } = await adminProject();
    const member = await h.user();
    await h.db.projectMember.create({ data: { projectId: project.id, userId: member.id, role: 'team_member' } });
    const stranger = await h.user();
    for (const path of [base, `${base}/export`, `${base}/verify`]) {
      expectError(await h.get(path, { token: member.accessToken }), 403);
      expectError(await h.get(path, { token: stranger.accessToken }), 404);
      expectError(await h.get(path), 401);
    }
  });
});
