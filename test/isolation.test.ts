import { apiRoutes } from '../apps/api/src/routes';
import { startApi, type Harness } from './harness';
import { tenant, type Tenant } from './fixtures';
import type { IsolationTable } from './isolation/types';
import { audiencesTable } from './isolation/audiences';
import { engagementTable } from './isolation/engagement';
import { projectsTable } from './isolation/projects';
import { pushTable } from './isolation/push';
import { pushConfigTable } from './isolation/push-config';
import { settingsTable } from './isolation/settings';
import { templatesTable } from './isolation/templates';
import { auditLogTable } from './isolation/audit-log';
import { victimState } from './isolation/victim-state';
import { webhooksTable } from './isolation/webhooks';

// Each module's routes. Add yours here.
const tables: Record<string, IsolationTable> = { projects: projectsTable, 'push-config': pushConfigTable, templates: templatesTable, push: pushTable, webhooks: webhooksTable, audiences: audiencesTable, 'audit-log': auditLogTable, settings: settingsTable, engagement: engagementTable };

let h: Harness;
let victim: Tenant;
let stranger: Tenant;
const ids: Record<string, string> = {};
let victimBefore: Record<string, unknown[]>;
const victimScope = () => ({ projectId: victim.project.id, userIds: [victim.owner.id, ids.projectsMemberId] });

beforeAll(async () => {
  h = await startApi();
  victim = await tenant(h);
  stranger = await tenant(h);
  ids.projectId = victim.project.id;
  ids.ownerId = victim.owner.id;
  ids.strangerProjectId = stranger.project.id;
  for (const table of Object.values(tables)) Object.assign(ids, await table.setup(h, victim));
  victimBefore = await victimState(h, victimScope());
});
afterAll(() => h.close());

const cases = Object.entries(tables).flatMap(([module, t]) => t.cases.map((c) => [`${module}: ${c.method} ${c.name}`, c] as const));

it('has routes to check', () => {
  expect(cases.length).toBeGreaterThanOrEqual(Object.keys(tables).length);
});

describe.each(cases)('%s', (_label, c) => {
  const call = (auth: { token?: string; apiKey?: string }) =>
    h.request(c.method, c.path(ids), {
      ...auth,
      query: c.query?.(ids),
      ...(c.form ? { raw: c.form(ids) } : c.body ? { body: c.body(ids) } : {}),
    });

  it('a stranger with a JWT gets 404 or 403 and none of the victim data', async () => {
    const res = await call({ token: stranger.owner.accessToken });
    expect([403, 404]).toContain(res.status);
    expect(res.body).toMatchObject({ statusCode: res.status, error: expect.any(String) });
    expect(res.text).not.toContain(victim.project.name);
  });

  it("another project's API key never acts on the victim's project", async () => {
    const res = await call({ apiKey: stranger.apiKey.key });
    expect(c.acceptsKey ? [403, 404] : [401, 403, 404]).toContain(res.status);
    expect(res.text).not.toContain(victim.project.name);
  });
});

describe('after every case', () => {
  it("the victim's rows are untouched, in every table", async () => {
    const after = await victimState(h, victimScope());
    // Not vacuous: the setup put rows of the victim's in each of these.
    for (const table of ['Project', 'User', 'ProjectMember', 'Invite', 'ApiKey', 'PushTemplate', 'PushConfig', 'ProviderConfig', 'Device', 'Notification', 'Segment', 'ProjectSettings']) {
      expect([table, (victimBefore[table] ?? []).length > 0]).toEqual([table, true]);
    }
    expect(after).toEqual(victimBefore);
  });

  it("each module's own checks hold", async () => {
    for (const table of Object.values(tables)) await table.verify?.(h, ids);
  });
});

/**
 * Every route that reaches into a project — it names one (`project` in its definition) or takes a
 * resource id in its path — must have a row in the table, so that a new route cannot skip the check.
 */
it('the table covers every project-scoped route', () => {
  const sample = Object.fromEntries(Object.keys(ids).map((k) => [k, ids[k]]));
  const covered = cases.map(([, c]) => `${c.method} ${c.path(sample)}`);
  const scoped = apiRoutes(h.container).filter(({ spec }) => spec.auth !== 'none' && (spec.project || /:(?!provider$)\w+/.test(spec.path)));
  const uncovered = scoped.filter(({ spec }) => {
    const pattern = new RegExp(`^${spec.method.toUpperCase()} ${spec.path.replace(/:\w+/g, '[^/]+')}$`);
    return !covered.some((c) => pattern.test(c));
  });
  expect(uncovered.map(({ spec }) => `${spec.method.toUpperCase()} ${spec.path}`)).toEqual([]);
});
