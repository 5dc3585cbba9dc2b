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
    expectError(await h.patch(`${base}/${created.id}`, { token: admin.accessToken, body: { enable: false } }), 400, /Provide name or enabled/);
    expectError(await h.patch(`${base}/${created.id}`, { token: admin.accessToken, body: { enabled: 'no' } }), 400);
    expectError(await h.patch(`${base}/not-a-uuid`, { token: admin.accessToken, body: { enabled: false } }), 400);
    expectError(await h.delete(`/projects/nope/api-keys/${created.id}`, { token: admin.accessToken }), 400);
    expect((await h.db.apiKey.findUniqueOrThrow({ where: { id: created.id } })).enabled).toBe(true);
  });
});
