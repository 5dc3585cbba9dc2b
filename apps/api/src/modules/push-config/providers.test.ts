import { randomBytes, randomUUID } from 'node:crypto';
import { AppError, SecretError, type KeyRing } from '@herald/core';
import { loadProviderCredentials, SYSTEM_AUDIT_SOURCE } from '@herald/db';
import { addMember, expectError, fcmConfig, keyMaterial, providerBody, rsaKey, serviceAccountFile, startApi, tenant, type Harness, type Session, type Tenant } from '@herald/testing';
import { PushConfigService } from './push-config.service';

/**
 * Provider configs (docs/api.md#push-config-and-providers). The last test scans every response and log line of this file for
 * key material, so every test here — error paths included — sends real private keys.
 */

let h: Harness;
beforeAll(async () => {
  // debug: successful requests are logged too, so the secret scan sees every request
  h = await startApi({ LOG_LEVEL: 'debug' });
});
afterAll(() => h.close());

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const MASK = '********';
/** Every key this file generated: none of their material may appear in a response or log line. */
const generated: string[] = [];
function newKey() {
  const { privateKey, publicKey } = rsaKey();
  generated.push(privateKey);
  return { privateKey, publicKey };
}

const asOwner = (t: Tenant) => ({ token: t.owner.accessToken, query: { projectId: t.project.id } });
const as = (s: Session, t: Tenant) => ({ token: s.accessToken, query: { projectId: t.project.id } });

async function createProvider(t: Tenant, body: Record<string, unknown>) {
  const res = await h.post('/push-config/providers', { ...asOwner(t), body });
  if (res.status !== 201) throw new Error(`create provider failed: ${res.status} ${res.text}`);
  return res.body as { id: string; priority: number; name: string; config: Record<string, string> };
}
const list = async (t: Tenant) => (await h.get('/push-config/providers', asOwner(t))).body as { id: string; priority: number; name: string }[];
const stored = async (projectId: string) => Object.fromEntries((await loadProviderCredentials(h.db, h.config.encryption, projectId)).map((p) => [p.id, p.credentials]));

describe('create', () => {
  it('answers 201 with the provider, the private key masked', async () => {
    const t = await tenant(h);
    const { privateKey } = newKey();
    const body = providerBody(privateKey, { priority: 3 });
    const res = await h.post('/push-config/providers', { ...asOwner(t), body });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      provider: 'fcm',
      name: body.name,
      priority: 3,
      enabled: true,
      config: { projectId: body.config.projectId, clientEmail: body.config.clientEmail, privateKey: MASK },
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    });
    expect(res.text).not.toContain('PRIVATE KEY');
    expect((await stored(t.project.id))[res.body.id]).toEqual({ ...body.config, privateKey: privateKey.trim() });
  });

  it('does not require a push config, and honours enabled: false', async () => {
    const t = await tenant(h);
    const p = await createProvider(t, providerBody(newKey().privateKey, { enabled: false }));
    expect(p).toMatchObject({ enabled: false });
    expectError(await h.get('/push-config', asOwner(t)), 404);
  });

  it('understands a pasted service-account JSON file, as an object or as its text', async () => {
    const t = await tenant(h);
    const { privateKey } = newKey();
    for (const config of [serviceAccountFile(privateKey), JSON.stringify(serviceAccountFile(privateKey))]) {
      const file = typeof config === 'string' ? JSON.parse(config) : config;
      const p = await createProvider(t, providerBody(privateKey, { config }));
      expect(p.config).toEqual({ projectId: file.project_id, clientEmail: file.client_email, privateKey: MASK });
      expect((await stored(t.project.id))[p.id]).toEqual({ projectId: file.project_id, clientEmail: file.client_email, privateKey: privateKey.trim() });
    }
  });

  it('accepts a private key with \\n-escaped newlines and stores a real PEM', async () => {
    const t = await tenant(h);
    const { privateKey } = newKey();
    const p = await createProvider(t, providerBody(privateKey, { config: fcmConfig(privateKey.replace(/\n/g, '\\n')) }));
    expect((await stored(t.project.id))[p.id].privateKey).toBe(privateKey.trim());
  });
});

describe('create: errors', () => {
  let t: Tenant;
  let privateKey: string;
  beforeAll(async () => {
    t = await tenant(h);
    privateKey = newKey().privateKey;
  });
  const post = (body: unknown) => h.post('/push-config/providers', { ...asOwner(t), body });

  it('refuses an unknown provider type with 400', async () => {
    const res = await post(providerBody(privateKey, { provider: 'apns' }));
    expectError(res, 400, 'Invalid request body: provider: provider must be one of: fcm');
  });

  it('names every missing field', async () => {
    const res = await post({});
    expectError(res, 400);
    expect(res.body.details).toEqual([
      { path: 'provider', message: 'provider is required' },
      { path: 'name', message: 'name is required' },
      { path: 'priority', message: 'priority is required' },
      { path: 'config', message: 'config is required' },
    ]);
  });

  it('refuses a private key that is not a PEM private key, without echoing it', async () => {
    const { publicKey } = newKey();
    const body = keyMaterial(privateKey).join('');
    const lines = privateKey.trim().split('\n');
    const [header, footer] = [lines[0], lines[lines.length - 1]];
    for (const bad of [body, publicKey, '<PRIVATE_KEY>', `${privateKey.slice(0, 300)}\n${footer}`, `${header}\n${body}`]) {
      const res = await post(providerBody(privateKey, { config: fcmConfig(bad) }));
      expectError(res, 400, /^Invalid request body: config\.privateKey: privateKey must be an unencrypted RSA private key in PEM form/);
      expect(res.body.details).toEqual([{ path: 'config.privateKey', message: expect.any(String) }]);
      expect(res.text).not.toContain(keyMaterial(privateKey)[0]);
    }
  });

  it('validates projectId and clientEmail of the config', async () => {
    const res = await post(providerBody(privateKey, { config: fcmConfig(privateKey, { projectId: '  ', clientEmail: 'herald' }) }));
    expectError(res, 400, 'Invalid request body: config.projectId: projectId is required');
    expect(res.body.details).toEqual([
      { path: 'config.projectId', message: 'projectId is required' },
      { path: 'config.clientEmail', message: 'clientEmail must be a valid e-mail address' },
    ]);
  });

  it('refuses a config that is not an object', async () => {
    expectError(await post(providerBody(privateKey, { config: privateKey })), 400, 'Invalid request body: config: config must be an object');
    expectError(await post(providerBody(privateKey, { config: [privateKey] })), 400, 'Invalid request body: config: config must be an object');
  });

  it('bounds priority and name', async () => {
    for (const priority of [-1, 1.5, 1_000_001, '1']) {
      const res = await post(providerBody(privateKey, { priority }));
      expectError(res, 400);
      expect(res.body.details[0].path).toBe('priority');
    }
    expect((await post(providerBody(privateKey, { priority: 1_000_000 }))).status).toBe(201);
    expect((await post(providerBody(privateKey, { priority: 0 }))).status).toBe(201);
    expectError(await post(providerBody(privateKey, { name: 'x'.repeat(101) })), 400, 'Invalid request body: name: name must be at most 100 characters');
    expectError(await post(providerBody(privateKey, { name: '   ' })), 400, 'Invalid request body: name: name is required');
  });

  it('answers malformed JSON with 400 and no echo', async () => {
    const raw = `{"provider":"fcm","config":{"privateKey":${JSON.stringify(privateKey)}}`;
    const res = await h.post('/push-config/providers', { ...asOwner(t), raw, contentType: 'application/json' });
    expectError(res, 400, 'Malformed JSON in request body');
  });

  it('answers a member who may not create 403, and a stranger 404, before looking at the body', async () => {
    const member = await h.user();
    await addMember(h, t.project.id, member, 'team_member');
    const stranger = await h.user();
    for (const body of [{ enabled: true }, providerBody(privateKey)]) {
      expectError(await h.post('/push-config/providers', { ...as(member, t), body }), 403);
      expectError(await h.post('/push-config/providers', { ...as(stranger, t), body }), 404);
    }
  });

  it('requires a projectId and a JWT', async () => {
    expectError(await h.post('/push-config/providers', { token: t.owner.accessToken, body: providerBody(privateKey) }), 400, 'projectId query parameter is required');
    expectError(await h.post('/push-config/providers', { apiKey: t.apiKey.key, query: { projectId: t.project.id }, body: providerBody(privateKey) }), 401);
    expect(await list(t)).toHaveLength(2);
  });
});

describe('list', () => {
  it('is a bare array sorted by priority, ties by creation', async () => {
    const t = await tenant(h);
    const { privateKey } = newKey();
    const b = await createProvider(t, providerBody(privateKey, { priority: 5, name: 'b' }));
    const a = await createProvider(t, providerBody(privateKey, { priority: 1, name: 'a' }));
    const c1 = await createProvider(t, providerBody(privateKey, { priority: 5, name: 'c1' }));
    const c2 = await createProvider(t, providerBody(privateKey, { priority: 5, name: 'c2' }));
    const res = await h.get('/push-config/providers', asOwner(t));
    expect(res.status).toBe(200);
    expect(res.body.map((p: { id: string }) => p.id)).toEqual([a.id, b.id, c1.id, c2.id]);
    expect(res.body[0]).toEqual(a);
    expect(res.text).not.toContain('PRIVATE KEY');
  });

  it('is empty for a project without providers, and only shows the project\'s own', async () => {
    const t = await tenant(h);
    const other = await tenant(h);
    await createProvider(other, providerBody(newKey().privateKey));
    const res = await h.get('/push-config/providers', asOwner(t));
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });
});

describe('update', () => {
  let t: Tenant;
  let privateKey: string;
  let provider: { id: string; name: string; config: Record<string, string> };
  let config: ReturnType<typeof fcmConfig>;
  beforeEach(async () => {
    t = await tenant(h);
    privateKey = newKey().privateKey;
    config = fcmConfig(privateKey);
    provider = await createProvider(t, providerBody(privateKey, { config }));
  });
  const put = (body: unknown, id = provider.id) => h.put(`/push-config/providers/${id}`, { token: t.owner.accessToken, body });

  it('changes name, priority and enabled, needing no projectId', async () => {
    const res = await put({ name: 'Renamed', priority: 9, enabled: false });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...provider, name: 'Renamed', priority: 9, enabled: false, updatedAt: expect.stringMatching(ISO) });
    expect((await put({ enabled: true })).body.enabled).toBe(true);
    expect((await list(t))[0]).toMatchObject({ name: 'Renamed', priority: 9, enabled: true });
  });

  it('accepts provider with its current value and refuses another with 400', async () => {
    expect((await put({ provider: 'fcm', name: 'Same type' })).status).toBe(200);
    expectError(await put({ provider: 'apns', name: 'Other type' }), 400, 'Provider type cannot be changed');
    expect((await list(t))[0].name).toBe('Same type');
  });

  it('merges a partial config into the stored one, keeping the private key', async () => {
    const res = await put({ config: { clientEmail: 'rotated@firebase.iam.gserviceaccount.com' } });
    expect(res.status).toBe(200);
    expect(res.body.config).toEqual({ projectId: config.projectId, clientEmail: 'rotated@firebase.iam.gserviceaccount.com', privateKey: MASK });
    expect((await stored(t.project.id))[provider.id]).toEqual({ ...config, clientEmail: 'rotated@firebase.iam.gserviceaccount.com', privateKey: privateKey.trim() });
  });

  it('keeps the stored key when the mask is sent back as the private key', async () => {
    expect((await put({ config: { projectId: 'renamed-firebase', privateKey: MASK } })).status).toBe(200);
    expect((await stored(t.project.id))[provider.id]).toEqual({ ...config, projectId: 'renamed-firebase', privateKey: privateKey.trim() });
  });

  it('replaces the private key, re-encrypting it', async () => {
    const before = await h.db.providerConfig.findUniqueOrThrow({ where: { id: provider.id } });
    const next = newKey().privateKey;
    expect((await put({ config: { privateKey: next.replace(/\n/g, '\\n') } })).status).toBe(200);
    const after = await h.db.providerConfig.findUniqueOrThrow({ where: { id: provider.id } });
    expect(after.secrets).not.toBe(before.secrets);
    expect((await stored(t.project.id))[provider.id]).toEqual({ ...config, privateKey: next.trim() });
  });

  it('accepts a service-account file as the new config', async () => {
    const file = serviceAccountFile(privateKey);
    expect((await put({ config: file })).body.config).toEqual({ projectId: file.project_id, clientEmail: file.client_email, privateKey: MASK });
  });

  it('validates the merged config and changes nothing on error', async () => {
    const res = await put({ name: 'Not applied', config: { privateKey: `${keyMaterial(privateKey).join('\n')}` } });
    expectError(res, 400, /^Invalid request body: config\.privateKey: /);
    expect(res.text).not.toContain(keyMaterial(privateKey)[0]);
    expectError(await put({ config: { clientEmail: 'nope' } }), 400, 'Invalid request body: config.clientEmail: clientEmail must be a valid e-mail address');
    expectError(await put({ priority: -5 }), 400);
    expectError(await put({ name: '' }), 400);
    expect((await list(t))[0]).toEqual(provider);
    expect((await stored(t.project.id))[provider.id]).toEqual({ ...config, privateKey: privateKey.trim() });
  });

  it('answers 404 for an unknown id and 400 for a malformed one', async () => {
    expectError(await put({ name: 'x' }, randomUUID()), 404, 'Provider config not found');
    expectError(await put({ name: 'x' }, 'not-a-uuid'), 400, /providerConfigId must be a valid UUID/);
  });
});

describe('delete', () => {
  it('removes the provider: 200 { message }, then 404', async () => {
    const t = await tenant(h);
    const keep = await createProvider(t, providerBody(newKey().privateKey));
    const gone = await createProvider(t, providerBody(newKey().privateKey));
    const res = await h.delete(`/push-config/providers/${gone.id}`, { token: t.owner.accessToken });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Provider config deleted' });
    expect((await list(t)).map((p) => p.id)).toEqual([keep.id]);
    expectError(await h.delete(`/push-config/providers/${gone.id}`, { token: t.owner.accessToken }), 404, 'Provider config not found');
    expectError(await h.delete('/push-config/providers/nope', { token: t.owner.accessToken }), 400);
  });
});

describe('priorities', () => {
  let t: Tenant;
  let a: { id: string };
  let b: { id: string };
  let c: { id: string };
  beforeEach(async () => {
    t = await tenant(h);
    const { privateKey } = newKey();
    a = await createProvider(t, providerBody(privateKey, { priority: 1, name: 'a' }));
    b = await createProvider(t, providerBody(privateKey, { priority: 2, name: 'b' }));
    c = await createProvider(t, providerBody(privateKey, { priority: 3, name: 'c' }));
  });
  const putPriorities = (providers: unknown, opts = asOwner(t)) => h.put('/push-config/providers/priorities', { ...opts, body: { providers } });
  const order = async () => (await list(t)).map((p) => [p.name, p.priority]);

  it('swaps two priorities and answers the project\'s providers sorted by priority', async () => {
    const res = await putPriorities([
      { id: a.id, priority: 2 },
      { id: b.id, priority: 1 },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.map((p: { name: string; priority: number }) => [p.name, p.priority])).toEqual([
      ['b', 1],
      ['a', 2],
      ['c', 3],
    ]);
    expect(res.body[0]).toMatchObject({ id: b.id, provider: 'fcm', config: { privateKey: MASK } });
    expect(await order()).toEqual([
      ['b', 1],
      ['a', 2],
      ['c', 3],
    ]);
  });

  it('is not taken for a provider id (the route is matched before :providerConfigId)', async () => {
    const res = await putPriorities([{ id: c.id, priority: 0 }]);
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    // without projectId it is this route's own error, not a malformed-id error of the :id route
    expectError(await h.put('/push-config/providers/priorities', { token: t.owner.accessToken, body: { providers: [{ id: c.id, priority: 0 }] } }), 400, 'projectId query parameter is required');
  });

  it("refuses another project's provider id with 400 and changes nothing", async () => {
    const other = await tenant(h);
    const foreign = await createProvider(other, providerBody(newKey().privateKey, { priority: 7 }));
    const res = await putPriorities([
      { id: a.id, priority: 10 },
      { id: foreign.id, priority: 0 },
    ]);
    expectError(res, 400, 'Every provider must belong to this project; nothing was changed');
    expect(res.body.details).toEqual([{ path: 'providers.1.id', message: 'Provider config not found in this project' }]);
    expect(await order()).toEqual([
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ]);
    expect((await list(other))[0].priority).toBe(7);
  });

  it('refuses unknown ids, duplicates, an empty list and bad priorities', async () => {
    expectError(await putPriorities([{ id: randomUUID(), priority: 1 }]), 400);
    expectError(await putPriorities([{ id: a.id, priority: 1 }, { id: a.id, priority: 2 }]), 400, /each provider id may appear only once/);
    expectError(await putPriorities([]), 400, /providers must not be empty/);
    expectError(await putPriorities([{ id: a.id, priority: -1 }]), 400);
    expectError(await putPriorities([{ id: 'x', priority: 1 }]), 400, /providers\.0\.id: id must be a valid UUID/);
    expectError(await h.put('/push-config/providers/priorities', { ...asOwner(t), body: {} }), 400, /providers is required/);
    expect(await order()).toEqual([
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ]);
  });
});

describe('roles and tenancy', () => {
  let t: Tenant;
  let member: Session;
  let admin: Session;
  let stranger: Tenant;
  let provider: { id: string };
  let privateKey: string;
  beforeAll(async () => {
    t = await tenant(h);
    stranger = await tenant(h);
    member = await h.user();
    admin = await h.user();
    await addMember(h, t.project.id, member, 'team_member');
    await addMember(h, t.project.id, admin, 'project_admin');
    privateKey = newKey().privateKey;
    provider = await createProvider(t, providerBody(privateKey, { name: 'original' }));
  });

  it('a team_member may read but every write is 403', async () => {
    const list = await h.get('/push-config/providers', as(member, t));
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(1);
    const denied = 'This action requires the project_admin role';
    expectError(await h.post('/push-config/providers', { ...as(member, t), body: providerBody(privateKey) }), 403, denied);
    expectError(await h.put(`/push-config/providers/${provider.id}`, { token: member.accessToken, body: { name: 'x' } }), 403, denied);
    expectError(await h.delete(`/push-config/providers/${provider.id}`, { token: member.accessToken }), 403, denied);
    expectError(await h.put('/push-config/providers/priorities', { ...as(member, t), body: { providers: [{ id: provider.id, priority: 9 }] } }), 403, denied);
    expect((await h.get('/push-config/providers', as(member, t))).body).toEqual(list.body);
  });

  it('a project_admin member may write', async () => {
    expect((await h.post('/push-config/providers', { ...as(admin, t), body: providerBody(privateKey) })).status).toBe(201);
    expect((await h.put(`/push-config/providers/${provider.id}`, { token: admin.accessToken, body: { name: 'by admin' } })).status).toBe(200);
  });

  it("a stranger gets 404 for the project's providers and for its provider ids, and changes nothing", async () => {
    const opts = as(stranger.owner, t);
    expectError(await h.get('/push-config/providers', opts), 404);
    expectError(await h.post('/push-config/providers', { ...opts, body: providerBody(privateKey) }), 404);
    expectError(await h.put('/push-config/providers/priorities', { ...opts, body: { providers: [{ id: provider.id, priority: 9 }] } }), 404);
    expectError(await h.put(`/push-config/providers/${provider.id}`, { token: stranger.owner.accessToken, body: { name: 'stolen' } }), 404, 'Provider config not found');
    expectError(await h.delete(`/push-config/providers/${provider.id}`, { token: stranger.owner.accessToken }), 404, 'Provider config not found');
    // their own project cannot reach it either
    expectError(await h.put('/push-config/providers/priorities', { ...asOwner(stranger), body: { providers: [{ id: provider.id, priority: 9 }] } }), 400);
    expect(await list(t)).toEqual(expect.arrayContaining([expect.objectContaining({ id: provider.id, name: 'by admin', priority: 1 })]));
  });

  it('is JWT only: an API key of the project gets 401', async () => {
    expectError(await h.get('/push-config/providers', { apiKey: t.apiKey.key, query: { projectId: t.project.id } }), 401);
    expectError(await h.delete(`/push-config/providers/${provider.id}`, { apiKey: t.apiKey.key }), 401);
  });
});

describe('credentials at rest', () => {
  it('stores no key material in plaintext: public fields in config, the key sealed with the current key id', async () => {
    const t = await tenant(h);
    const { privateKey } = newKey();
    const p = await createProvider(t, providerBody(privateKey, { config: serviceAccountFile(privateKey) }));
    const rows = await h.db.$queryRaw<{ config: unknown; secrets: string; keyId: string }[]>`SELECT * FROM "ProviderConfig" WHERE "id" = ${p.id}::uuid`;
    expect(rows).toHaveLength(1);
    const raw = JSON.stringify(rows[0]);
    expect(raw).not.toContain('PRIVATE KEY');
    for (const line of keyMaterial(privateKey)) expect(raw).not.toContain(line);
    expect(raw).not.toContain(Buffer.from(privateKey).toString('base64').slice(0, 40));
    expect(Object.keys(rows[0].config as object).sort()).toEqual(['clientEmail', 'projectId']);
    expect(rows[0].secrets).toMatch(/^v1\./);
    expect(rows[0].keyId).toBe(h.config.encryption.currentKeyId);
  });

  it('loads enabled providers in failover order with decrypted credentials, for the worker', async () => {
    const t = await tenant(h);
    const k1 = newKey().privateKey;
    const k2 = newKey().privateKey;
    const second = await createProvider(t, providerBody(k2, { priority: 2 }));
    const first = await createProvider(t, providerBody(k1, { priority: 1 }));
    await createProvider(t, providerBody(k1, { priority: 0, enabled: false }));
    // A tie in priority: the older configuration first.
    const third = await createProvider(t, providerBody(k1, { priority: 2 }));
    const loaded = await loadProviderCredentials(h.db, h.config.encryption, t.project.id);
    expect(loaded.map((p) => [p.id, p.priority, p.credentials.privateKey])).toEqual([
      [first.id, 1, k1.trim()],
      [second.id, 2, k2.trim()],
      [third.id, 2, k1.trim()],
    ]);
    expect(loaded[0]).toEqual({ id: first.id, provider: 'fcm', name: first.name, priority: 1, updatedAt: expect.any(Date), credentials: expect.any(Object) });
  });

  it('decrypts with the key named by keyId after a rotation, and names a missing key clearly', async () => {
    const t = await tenant(h);
    const { privateKey } = newKey();
    const p = await createProvider(t, providerBody(privateKey));
    const old = h.config.encryption;
    const rotated: KeyRing = { keys: new Map([['rotated1', randomBytes(32)], ...old.keys]), currentKeyId: 'rotated1' };
    expect((await loadProviderCredentials(h.db, rotated, t.project.id))[0].credentials.privateKey).toBe(privateKey.trim());

    // an update through the rotated ring re-seals with the new key
    const service = new PushConfigService(h.db, rotated);
    await service.updateProvider(t.project.id, p.id, { config: { clientEmail: 'rotated@firebase.iam.gserviceaccount.com' } }, SYSTEM_AUDIT_SOURCE);
    expect((await h.db.providerConfig.findUniqueOrThrow({ where: { id: p.id } })).keyId).toBe('rotated1');
    expect((await loadProviderCredentials(h.db, rotated, t.project.id))[0].credentials).toMatchObject({ privateKey: privateKey.trim(), clientEmail: 'rotated@firebase.iam.gserviceaccount.com' });

    // the old ring alone no longer has the key: the row is skipped and the reason reported
    const errors: [string, Error][] = [];
    expect(await loadProviderCredentials(h.db, old, t.project.id, (id, err) => errors.push([id, err]))).toEqual([]);
    expect(errors).toEqual([[p.id, expect.any(SecretError)]]);
    expect(errors[0][1].message).toMatch(/Encryption key "rotated1" is not configured/);
    expect(errors[0][1].message).not.toContain('PRIVATE KEY');

    // a partial update cannot merge into credentials it cannot open (409); a full config replaces them
    const oldService = new PushConfigService(h.db, old);
    const conflict = await oldService.updateProvider(t.project.id, p.id, { config: { projectId: 'x' } }, SYSTEM_AUDIT_SOURCE).catch((e: unknown) => e);
    expect(conflict).toBeInstanceOf(AppError);
    expect(conflict).toMatchObject({ status: 409, message: expect.stringMatching(/cannot be decrypted/) });
    await oldService.updateProvider(t.project.id, p.id, { config: fcmConfig(privateKey) }, SYSTEM_AUDIT_SOURCE);
    expect((await loadProviderCredentials(h.db, old, t.project.id))[0].credentials.privateKey).toBe(privateKey.trim());
  });

  it('binds each sealed key to its row: copied into another row, it does not open', async () => {
    const t = await tenant(h);
    const a = await createProvider(t, providerBody(newKey().privateKey, { priority: 1 }));
    const b = await createProvider(t, providerBody(newKey().privateKey, { priority: 2 }));
    const rowA = await h.db.providerConfig.findUniqueOrThrow({ where: { id: a.id } });
    await h.db.providerConfig.update({ where: { id: b.id }, data: { secrets: rowA.secrets, keyId: rowA.keyId } });
    const errors: [string, Error][] = [];
    const loaded = await loadProviderCredentials(h.db, h.config.encryption, t.project.id, (id, err) => errors.push([id, err]));
    expect(loaded.map((p) => p.id)).toEqual([a.id]);
    expect(errors).toEqual([[b.id, expect.objectContaining({ reason: 'authentication_failed' })]]);
  });
});

// Runs last (jest runs a file's tests in order): everything above, error paths included, went through here.
describe('secrets never leave the server', () => {
  it('no response body and no log line of this file contains key material', () => {
    expect(generated.length).toBeGreaterThan(10);
    expect(h.responses.length).toBeGreaterThan(50);
    expect(h.logLines.length).toBeGreaterThan(50);
    const everything = [...h.responses, ...h.logLines];
    const leaks = everything.filter((text) => text.includes('PRIVATE KEY') || generated.some((pem) => keyMaterial(pem).some((line) => text.includes(line))));
    expect(leaks).toEqual([]);
  });

  it('the scan covered logged requests, refused ones included', () => {
    const logged = h.logLines.filter((l) => l.includes('/push-config/providers'));
    expect(logged.some((l) => l.includes('"statusCode":201'))).toBe(true);
    expect(logged.some((l) => l.includes('"statusCode":400'))).toBe(true);
  });
});
