import { hashSecret } from '@herald/core';
import { API_KEY_SCOPES } from '@herald/schemas';
import { expectError, startApi, waitUntil, type Harness } from '@herald/testing';
import { keysAdmin } from './test-helpers/keys-admin';

/**
 * API keys: what the endpoints do when used as intended. Refusals are in
 * api-keys.errors.test.ts, credentials, roles and tenancy in api-keys.security.test.ts.
 */

let h: Harness;
beforeAll(async () => {
  h = await startApi();
});
afterAll(() => h.close());

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const adminWithProject = () => keysAdmin(h);

describe('API key CRUD', () => {
  it('creates a key shown once, stored hashed, listed without any secret', async () => {
    const { admin, project, base } = await adminWithProject();
    const res = await h.post(base, { token: admin.accessToken, body: { name: ' Production ' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.any(String), name: 'Production', key: expect.stringMatching(/^hk_[0-9A-Za-z]{40}$/), prefix: expect.any(String), enabled: true, scopes: [...API_KEY_SCOPES], expiresAt: null, createdAt: expect.stringMatching(ISO) });
    const { key, prefix } = res.body;
    expect(key.startsWith(prefix)).toBe(true);
    expect(prefix.length).toBeLessThan(key.length / 2);

    const row = await h.db.apiKey.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(row).toMatchObject({ projectId: project.id, keyHash: hashSecret(key) });

    const list = await h.get(base, { token: admin.accessToken });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([{ id: res.body.id, name: 'Production', prefix, enabled: true, scopes: [...API_KEY_SCOPES], expiresAt: null, createdAt: res.body.createdAt, lastUsedAt: null }]);
    expect(list.text).not.toContain(key);
    expect(list.text).not.toContain(row.keyHash);

    // The new key works at once on a key-accepting route.
    expect((await h.get(`/projects/${project.id}`, { apiKey: key })).status).toBe(200);
  });

  it('records lastUsedAt when a key is used', async () => {
    const { admin, project, base } = await adminWithProject();
    const { key, id } = (await h.post(base, { token: admin.accessToken, body: { name: 'used' } })).body;
    await h.get(`/projects/${project.id}`, { apiKey: key });
    // Written off the request path.
    const lastUsedAt = await waitUntil(async () => (await h.get(base, { token: admin.accessToken })).body.find((k: { id: string }) => k.id === id).lastUsedAt as string | null, 2000, 'lastUsedAt');
    expect(lastUsedAt).toMatch(ISO);
  });

  it('PATCH renames, disables and enables; DELETE removes', async () => {
    const { admin, project, base } = await adminWithProject();
    const created = (await h.post(base, { token: admin.accessToken, body: { name: 'ci' } })).body;

    const renamed = await h.patch(`${base}/${created.id}`, { token: admin.accessToken, body: { name: 'staging' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({ id: created.id, name: 'staging', prefix: created.prefix, enabled: true, scopes: [...API_KEY_SCOPES], expiresAt: null, createdAt: created.createdAt, lastUsedAt: null });

    const disabled = await h.patch(`${base}/${created.id}`, { token: admin.accessToken, body: { enabled: false } });
    expect(disabled.body).toMatchObject({ name: 'staging', enabled: false });
    expect(disabled.text).not.toContain(created.key);
    expectError(await h.get(`/projects/${project.id}`, { apiKey: created.key }), 401, 'API key is disabled');

    expect((await h.patch(`${base}/${created.id}`, { token: admin.accessToken, body: { enabled: true } })).body.enabled).toBe(true);
    expect((await h.get(`/projects/${project.id}`, { apiKey: created.key })).status).toBe(200);

    const deleted = await h.delete(`${base}/${created.id}`, { token: admin.accessToken });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ message: 'API key deleted' });
    expect(await h.db.apiKey.count({ where: { id: created.id } })).toBe(0);
    expectError(await h.get(`/projects/${project.id}`, { apiKey: created.key }), 401, 'Invalid API key');
    expectError(await h.delete(`${base}/${created.id}`, { token: admin.accessToken }), 404, 'API key not found');
    expectError(await h.patch(`${base}/${created.id}`, { token: admin.accessToken, body: { enabled: false } }), 404, 'API key not found');
  });
});
