import { randomUUID } from 'node:crypto';
import { API_KEY_SCOPES, type ApiKeyScope } from '@herald/schemas';
import { createApiKey, createProject, expectError, startApi, unique, waitUntil, type Harness } from '@herald/testing';
import { Authenticator, lastUsedGateKey } from '../../http/caller';
import { operationKey } from '../../openapi/document';
import { apiRoutes } from '../../routes';

/**
 * API key scopes, expiry and last use (docs/api.md#api-key-scopes): the scope matrix of every route an
 * API key can call against every scope, read from one table that must name every such route.
 */

let h: Harness;
beforeAll(async () => {
  h = await startApi();
});
afterAll(() => h.close());

/** The scope each key route needs (`any`: every key may call it). A key route missing here fails the first test. */
const ROUTE_SCOPES: Record<string, ApiKeyScope | 'any'> = {
  'POST /push/send': 'send',
  'POST /push/send-bulk': 'send',
  'POST /push/broadcast': 'send',
  'GET /push/notifications': 'notifications:read',
  'GET /push/notifications/{notificationId}': 'notifications:read',
  'POST /push/notifications/{notificationId}/cancel': 'send',
  'POST /push/notifications/{notificationId}/resume': 'send',
  'POST /push/register-device': 'devices:write',
  'POST /push/unregister-device': 'devices:write',
  'POST /push/users/attributes': 'devices:write',
  'PATCH /push/users/{userId}/attributes': 'devices:write',
  'POST /push/audience/count': 'devices:read',
  'GET /projects/{projectId}': 'any',
  'POST /push-templates/preview': 'templates:read',
  'PUT /push-templates/{id}': 'templates:write',
  'POST /push/events': 'events:write',
  'GET /push/notifications/{notificationId}/events': 'notifications:read',
  'GET /push-templates/{id}/engagement': 'templates:read',
  'GET /push/analytics-labels/{label}/engagement': 'notifications:read',
};

const keyRoutes = () => apiRoutes(h.container).filter((r) => r.spec.auth === 'key' || r.spec.auth === 'keyOrJwt');

describe('API key scopes', () => {
  it('every route an API key can call names its scope, the one this table expects', () => {
    const declared = Object.fromEntries(keyRoutes().map((r) => [operationKey(r.spec.method, r.spec.path), r.spec.scope ?? 'none']));
    expect(declared).toEqual(ROUTE_SCOPES);
  });

  it('a new key has every scope; one created with some has only those, in their catalogue order', async () => {
    const owner = await h.user();
    const project = await createProject(h, owner);
    const base = `/projects/${project.id}/api-keys`;
    const all = await h.post(base, { token: owner.accessToken, body: { name: 'all' } });
    expect(all.body.scopes).toEqual([...API_KEY_SCOPES]);
    const some = await h.post(base, { token: owner.accessToken, body: { name: 'some', scopes: ['send', 'devices:write', 'send'] } });
    expect(some.status).toBe(201);
    expect(some.body.scopes).toEqual(['devices:write', 'send']);
    expect((await h.get(base, { token: owner.accessToken })).body.find((k: { id: string }) => k.id === some.body.id).scopes).toEqual(['devices:write', 'send']);
  });

  describe('the matrix: every key route × every scope → allowed or 403 naming the scope', () => {
    let keys: Record<ApiKeyScope, string>;
    let projectId: string;
    beforeAll(async () => {
      const owner = await h.user();
      const project = await createProject(h, owner);
      projectId = project.id;
      const made = await Promise.all(
        API_KEY_SCOPES.map(async (scope) => {
          const res = await h.post(`/projects/${project.id}/api-keys`, { token: owner.accessToken, body: { name: scope, scopes: [scope] } });
          expect(res.status).toBe(201);
          return [scope, res.body.key as string] as const;
        }),
      );
      keys = Object.fromEntries(made) as Record<ApiKeyScope, string>;
    });

    const cases = Object.entries(ROUTE_SCOPES).flatMap(([route, needed]) => API_KEY_SCOPES.map((scope) => [route, scope, needed === 'any' || needed === scope] as const));

    it.each(cases)('%s with a %s key: allowed %s', async (route, scope, allowed) => {
      const [method, path] = route.split(' ');
      const url = path.replace(/\{(\w+)\}/g, (_, name: string) => (name === 'projectId' ? projectId : name === 'userId' ? unique('user') : randomUUID()));
      // An empty body: a route the key may call goes on to validate it (a 400, or a 404 for the random ids).
      const res = await h.request(method, url, { apiKey: keys[scope], body: method === 'GET' ? undefined : {} });
      if (allowed) {
        expect(res.status).not.toBe(403);
        expect(res.status).not.toBe(401);
      } else {
        expectError(res, 403, `This API key lacks the ${ROUTE_SCOPES[route]} scope`);
        expect(res.body.details).toEqual([{ path: 'scope', message: `Missing scope: ${ROUTE_SCOPES[route]}` }]);
      }
    });
  });

  it('a key stored without scopes (as every key made before them) has them all and keeps working', async () => {
    const owner = await h.user();
    const project = await createProject(h, owner);
    const { id, key } = await createApiKey(h, project.id);
    expect((await h.db.apiKey.findUniqueOrThrow({ where: { id } })).scopes).toEqual([...API_KEY_SCOPES]);
    expect((await h.post('/push/send', { apiKey: key, body: {} })).status).toBe(400);
    expect((await h.get('/push/notifications', { apiKey: key })).status).toBe(200);
  });

  it('a bearer token is not bound by scopes', async () => {
    const owner = await h.user();
    const project = await createProject(h, owner);
    const res = await h.get(`/push/notifications?projectId=${project.id}`, { token: owner.accessToken });
    expect(res.status).toBe(200);
  });
});

describe('API key expiry', () => {
  it('a key past its expiresAt is 401 "API key has expired"; PATCH expiresAt: null revives it', async () => {
    const owner = await h.user();
    const project = await createProject(h, owner);
    const base = `/projects/${project.id}/api-keys`;
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const created = await h.post(base, { token: owner.accessToken, body: { name: 'temp', expiresAt } });
    expect(created.status).toBe(201);
    expect(created.body.expiresAt).toBe(expiresAt);
    expect((await h.get(`/projects/${project.id}`, { apiKey: created.body.key })).status).toBe(200);

    // Time passes: the row says it expired a second ago (and the project's cached state is refreshed).
    await h.db.apiKey.update({ where: { id: created.body.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await h.container.projectCache.invalidate([project.id]);
    expectError(await h.get(`/projects/${project.id}`, { apiKey: created.body.key }), 401, 'API key has expired');
    expectError(await h.post('/push/register-device', { apiKey: created.body.key, body: {} }), 401, 'API key has expired');

    const revived = await h.patch(`${base}/${created.body.id}`, { token: owner.accessToken, body: { expiresAt: null } });
    expect(revived.body.expiresAt).toBeNull();
    expect((await h.get(`/projects/${project.id}`, { apiKey: created.body.key })).status).toBe(200);
  });
});

describe('API key last use', () => {
  it('is written at most once a minute per key across instances (a Redis gate)', async () => {
    const owner = await h.user();
    const project = await createProject(h, owner);
    const { body: key } = await h.post(`/projects/${project.id}/api-keys`, { token: owner.accessToken, body: { name: 'busy' } });
    const gate = { redis: h.container.redis, prefix: h.config.queuePrefix };
    // Two instances: each would write once a minute on its own.
    const instances = [0, 1].map(() => new Authenticator(h.db, h.config.jwt.secret, h.container.projectCache, gate));
    const request = () => ({ headers: { 'x-api-key': key.key } }) as never;

    await instances[0].resolve(request(), 'key');
    const first = await waitUntil(async () => (await h.db.apiKey.findUniqueOrThrow({ where: { id: key.id } })).lastUsedAt, 2000, 'lastUsedAt');
    const ttl = await h.container.redis.pttl(lastUsedGateKey(h.config.queuePrefix, key.id));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);

    await h.db.apiKey.update({ where: { id: key.id }, data: { lastUsedAt: null } });
    for (let i = 0; i < 5; i++) await instances[1].resolve(request(), 'key');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await h.db.apiKey.findUniqueOrThrow({ where: { id: key.id } })).lastUsedAt).toBeNull();

    // Once the gate lapses, the next use writes again.
    await h.container.redis.del(lastUsedGateKey(h.config.queuePrefix, key.id));
    const third = new Authenticator(h.db, h.config.jwt.secret, h.container.projectCache, gate);
    await third.resolve(request(), 'key');
    const again = await waitUntil(async () => (await h.db.apiKey.findUniqueOrThrow({ where: { id: key.id } })).lastUsedAt, 2000, 'lastUsedAt again');
    expect(again.getTime()).toBeGreaterThanOrEqual(first.getTime());
  });
});
