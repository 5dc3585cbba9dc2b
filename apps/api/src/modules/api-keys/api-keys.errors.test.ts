import { expectError, startApi, type Harness } from '@herald/testing';
import { keysAdmin } from './test-helpers/keys-admin';

/** API keys: what the endpoints refuse, and with which status and message. */

let h: Harness;
beforeAll(async () => {
  h = await startApi();
});
afterAll(() => h.close());

const adminWithProject = () => keysAdmin(h);

describe('API key CRUD', () => {
  it('400 for bad input: missing or empty name, empty PATCH, mistyped enabled, malformed ids', async () => {
    const { admin, base } = await adminWithProject();
    const created = (await h.post(base, { token: admin.accessToken, body: { name: 'k' } })).body;
    for (const body of [{}, { name: '' }, { name: 'x'.repeat(101) }, { name: 7 }]) {
      const res = await h.post(base, { token: admin.accessToken, body });
      expectError(res, 400);
      expect(res.body.details[0].path).toBe('name');
    }
    // A typo must not answer 200 and leave the key enabled.
    expectError(await h.patch(`${base}/${created.id}`, { token: admin.accessToken, body: { enable: false } }), 400, /Provide name, enabled, scopes or expiresAt/);
    expectError(await h.patch(`${base}/${created.id}`, { token: admin.accessToken, body: { enabled: 'no' } }), 400);
    expectError(await h.patch(`${base}/not-a-uuid`, { token: admin.accessToken, body: { enabled: false } }), 400);
    expectError(await h.delete(`/projects/nope/api-keys/${created.id}`, { token: admin.accessToken }), 400);
    expect((await h.db.apiKey.findUniqueOrThrow({ where: { id: created.id } })).enabled).toBe(true);
  });

  it('400 naming the field for an unknown or empty scopes list and an expiresAt that is past or no date', async () => {
    const { admin, base, project } = await adminWithProject();
    const created = (await h.post(base, { token: admin.accessToken, body: { name: 'k' } })).body;
    const cases: Array<[object, string, RegExp]> = [
      [{ scopes: ['send', 'devices:delete'] }, 'scopes.1', /scopes must each be one of: devices:write, devices:read, send/],
      [{ scopes: [] }, 'scopes', /at least one scope/],
      [{ scopes: 'send' }, 'scopes', /scopes must be an array/],
      [{ expiresAt: new Date(Date.now() - 60_000).toISOString() }, 'expiresAt', /expiresAt must be in the future/],
      [{ expiresAt: 'tomorrow' }, 'expiresAt', /expiresAt must be an ISO 8601 date-time/],
    ];
    for (const [fields, path, message] of cases) {
      for (const res of [await h.post(base, { token: admin.accessToken, body: { name: 'bad', ...fields } }), await h.patch(`${base}/${created.id}`, { token: admin.accessToken, body: fields })]) {
        expectError(res, 400, message);
        expect(res.body.details[0].path).toBe(path);
      }
    }
    expect(await h.db.apiKey.count({ where: { projectId: project.id, name: 'bad' } })).toBe(0);
    expect(await h.db.apiKey.findUniqueOrThrow({ where: { id: created.id } })).toMatchObject({ scopes: expect.arrayContaining(['send']), expiresAt: null });
  });
});
