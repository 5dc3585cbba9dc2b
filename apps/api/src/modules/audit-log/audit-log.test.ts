import { hashSecret, randomToken } from '@herald/core';
import { createProject, expectError, PASSWORD, providerBody, rsaKey, startApi, type Harness, type Session } from '@herald/testing';

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

describe('what an entry records', () => {
  it('a secret only as "changed": an API key, a webhook signing secret, provider credentials, an invite token', async () => {
    const { admin, project, base } = await adminProject();
    const token = { token: admin.accessToken };
    const hook = await h.post(`/projects/${project.id}/webhooks`, { ...token, body: { url: 'https://hooks.example.com/herald', events: ['notification.completed'] } });
    expect(hook.status).toBe(201);
    const rotated = await h.post(`/projects/${project.id}/webhooks/${hook.body.id}/rotate-secret`, token);
    expect(rotated.status).toBe(200);
    expect((await h.post(`/push-config?projectId=${project.id}`, { ...token, body: {} })).status).toBe(201);
    const { privateKey } = rsaKey();
    const provider = await h.post(`/push-config/providers?projectId=${project.id}`, { ...token, body: providerBody(privateKey) });
    expect(provider.status).toBe(201);
    expect((await h.put(`/push-config/providers/${provider.body.id}`, { ...token, body: { config: providerBody(rsaKey().privateKey).config } })).status).toBe(200);
    const invite = await h.post('/projects/invite', { ...token, body: { email: `invitee-${randomToken(4)}@example.com`, projectId: project.id } });
    expect(invite.status).toBe(201);
    expect((await h.post(`/projects/resend-invite/${invite.body.id}`, token)).status).toBe(200);

    const res = await h.get(base, token);
    const changes = (action: string) => res.body.data.find((e: { action: string }) => e.action === action)?.changes;
    expect(changes('webhook.created')).toMatchObject({ url: { before: null, after: 'https://hooks.example.com/herald' }, secret: 'changed' });
    expect(changes('webhook.secret_rotated')).toEqual({ secret: 'changed' });
    expect(changes('provider.created')).toMatchObject({ secrets: 'changed' });
    expect(changes('provider.updated')).toMatchObject({ secrets: 'changed' });
    expect(changes('invite.resent')).toMatchObject({ tokenHash: 'changed' });
    const stored = (await h.db.invite.findUniqueOrThrow({ where: { id: invite.body.id } })).tokenHash;
    for (const secret of [hook.body.secret, rotated.body.secret, privateKey, stored].filter(Boolean)) expect(res.text).not.toContain(secret);
    const exported = await h.get(`${base}/export`, token);
    for (const secret of [hook.body.secret, rotated.body.secret, stored].filter(Boolean)) expect(exported.text).not.toContain(secret);
  });

  it('an invite that raises a member to project_admin is member.role_changed, by the member', async () => {
    const { admin, project, base } = await adminProject();
    const member = await h.user();
    const invite = async (role: 'team_member' | 'project_admin') => {
      const token = randomToken(32);
      await h.db.invite.create({ data: { projectId: project.id, email: member.email, role, tokenHash: hashSecret(token), expiresAt: new Date(Date.now() + 86_400_000) } });
      return token;
    };
    // One pending invite per address: the second is written once the first is accepted (the API refuses to invite a member).
    expect((await h.post('/projects/accept-invite', { body: { token: await invite('team_member'), password: PASSWORD } })).status).toBe(201);
    expect((await h.post('/projects/accept-invite', { body: { token: await invite('project_admin'), password: PASSWORD } })).status).toBe(201);
    const entries = (await h.get(`${base}?targetId=${member.id}`, { token: admin.accessToken })).body.data;
    expect(entries.map((e: { action: string }) => e.action)).toEqual(['member.role_changed', 'member.joined']);
    expect(entries[0]).toMatchObject({ actor: { type: 'user', id: member.id, email: member.email }, changes: { role: { before: 'team_member', after: 'project_admin' } } });
    expect(entries[1].changes).toMatchObject({ role: { before: null, after: 'team_member' } });
  });

  it('is written in the change\'s transaction: a change whose entry cannot be written does not happen', async () => {
    const { admin, project } = await adminProject();
    const template = await h.post('/push-templates', { token: admin.accessToken, body: { projectId: project.id, name: 'tx', title: 'Before', body: 'B' } });
    expect(template.status).toBe(201);
    // A trigger refusing this project's next entries (this run's own database, this project only).
    const fn = `audit_refuse_${project.id.replace(/-/g, '')}`;
    await h.db.$executeRawUnsafe(`CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'audit write refused'; END $$`);
    await h.db.$executeRawUnsafe(`CREATE TRIGGER ${fn} BEFORE INSERT ON "AuditEntry" FOR EACH ROW WHEN (NEW."projectId" = '${project.id}'::uuid) EXECUTE FUNCTION ${fn}()`);
    try {
      const res = await h.put(`/push-templates/${template.body.id}?projectId=${project.id}`, { token: admin.accessToken, body: { title: 'After' } });
      expect(res.status).toBe(500);
      expect((await h.post(`/projects/${project.id}/api-keys`, { token: admin.accessToken, body: { name: 'never' } })).status).toBe(500);
    } finally {
      await h.db.$executeRawUnsafe(`DROP TRIGGER ${fn} ON "AuditEntry"`);
      await h.db.$executeRawUnsafe(`DROP FUNCTION ${fn}()`);
    }
    expect((await h.db.pushTemplate.findUniqueOrThrow({ where: { id: template.body.id } })).title).toBe('Before');
    expect(await h.db.apiKey.count({ where: { projectId: project.id } })).toBe(0);
    expect(await h.db.auditEntry.count({ where: { projectId: project.id } })).toBe(1);
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

  it('chains per project without forks: concurrent changes in two projects number 1…n each and verify', async () => {
    const a = await adminProject();
    const b = await adminProject();
    const create = (w: typeof a, i: number) => h.post('/push-templates', { token: w.admin.accessToken, body: { projectId: w.project.id, name: `t${i}`, title: 'T', body: 'B' } });
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => create(i % 2 ? a : b, i)));
    expect(results.map((r) => r.status)).toEqual(Array(12).fill(201));
    for (const w of [a, b]) {
      const rows = await h.db.auditEntry.findMany({ where: { projectId: w.project.id }, orderBy: { number: 'asc' }, select: { number: true, hash: true } });
      expect(rows.map((r) => Number(r.number))).toEqual([1, 2, 3, 4, 5, 6]);
      expect(new Set(rows.map((r) => r.hash)).size).toBe(6);
      expect((await h.get(`${w.base}/verify`, { token: w.admin.accessToken })).body).toEqual({ valid: true, entries: 6 });
    }
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
