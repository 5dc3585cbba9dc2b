import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { DASHBOARD_DIR } from '../../apps/api/src/dashboard/serve';
import { addMember, createApiKey, createProject } from '../fixtures';
import { httpRequest, startApi, unique, type Harness, type Session } from '../harness';
import { check, CHROMIUM, type DashboardPage, launch, newPage } from './browser';

/**
 * The segments page in a real Chromium against the real API (which serves the dashboard) and
 * Postgres: a segment built with the form, its live count checked against the devices registered
 * here, edited (form and JSON view), read by a team member, and deleted.
 */
let h: Harness;
let browser: Browser;
let admin: Session;
let projectId = '';

jest.setTimeout(120_000);

beforeAll(async () => {
  if (!existsSync(path.join(DASHBOARD_DIR, 'index.html'))) throw new Error(`${DASHBOARD_DIR} has no build: run pnpm build`);
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium package (apt-get install chromium)`);
  h = await startApi();
  browser = await launch();
  admin = await h.user();
  projectId = (await createProject(h, admin, unique('Segments project'))).id;
  const { key } = await createApiKey(h, projectId);
  const devices = [
    { userId: 'ada', platform: 'ios', tags: { plan: 'pro', seats: 5 }, appVersion: '10.0' },
    { userId: 'ada', platform: 'android', tags: { plan: 'pro' }, appVersion: '9.2' },
    { userId: 'bob', platform: 'ios', tags: { plan: 'free' }, appVersion: '10.1' },
    { userId: 'cy', platform: 'web', tags: { plan: 'pro' }, appVersion: '2.0' },
    { userId: 'dee', platform: 'android' },
  ];
  for (const d of devices) {
    const res = await httpRequest(h.url, 'POST', '/push/register-device', { apiKey: key, body: { ...d, deviceToken: unique('tok'), provider: 'fcm' } });
    expect(res.status).toBe(201);
  }
});

afterAll(async () => {
  await browser?.close();
  await h?.close();
});

async function signIn(page: DashboardPage, email: string, password: string) {
  await page.goto(`${h.url}/signin`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Projects', exact: true }).waitFor();
}

/** What the API counts for a filter: the figures the page must show. */
async function apiCount(filter: unknown) {
  const res = await h.post('/push/audience/count', { token: admin.accessToken, query: { projectId }, body: { filter } });
  expect(res.status).toBe(200);
  return res.body as { devices: number; users: number; byPlatform: Record<string, number> };
}

/** Waits until the page's live count reads exactly these figures. */
function showsCount(page: DashboardPage, c: { devices: number; users: number; byPlatform: Record<string, number> }) {
  const text = `${c.devices} ${c.devices === 1 ? 'device' : 'devices'}${c.users} ${c.users === 1 ? 'user' : 'users'}android ${c.byPlatform.android}ios ${c.byPlatform.ios}web ${c.byPlatform.web}`;
  return page.getByTestId('audience-count').filter({ hasText: new RegExp(`^${text}$`) }).waitFor();
}

describe('segments page in a real browser', () => {
  it('builds a segment with the form and its live count, edits it as JSON, and deletes it', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, admin.email, admin.password);
    await page.goto(`${h.url}/p/${projectId}`);
    await page.getByRole('link', { name: 'Segments' }).click();
    await page.getByRole('heading', { name: 'No segments yet' }).waitFor();
    await check(page, 'segments-01-empty');

    // A tag condition: the count follows, and equals the API's.
    await page.getByRole('button', { name: 'New segment' }).first().click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('Pro on recent versions');
    const first = dialog.getByRole('group', { name: 'Condition 1' });
    await first.getByLabel('Field').selectOption('tag');
    await first.getByLabel('Tag key').fill('plan');
    await first.getByLabel('Value', { exact: true }).fill('pro');
    const count = dialog.getByTestId('audience-count');
    const pro = await apiCount({ field: 'tags.plan', op: 'eq', value: 'pro' });
    expect(pro).toEqual({ devices: 3, users: 2, byPlatform: { android: 1, ios: 1, web: 1 } });
    await showsCount(page, pro);

    // A second condition: app versions compared as versions (10.0 > 9.5 > 9.2 > 2.0).
    await dialog.getByRole('button', { name: 'Add condition' }).click();
    const second = dialog.getByRole('group', { name: 'Condition 2' });
    await second.getByLabel('Field').selectOption('appVersion');
    await second.getByLabel('Operator').selectOption('gt');
    await second.getByLabel('Value', { exact: true }).fill('9.5');
    const both = { and: [{ field: 'tags.plan', op: 'eq', value: 'pro' }, { field: 'appVersion', op: 'gt', value: '9.5' }] };
    const recent = await apiCount(both);
    expect(recent).toEqual({ devices: 1, users: 1, byPlatform: { android: 0, ios: 1, web: 0 } });
    await showsCount(page, recent);
    await check(page, 'segments-02-new');

    // A bad value is named under its field, in the API's words, and nothing is sent.
    const writes: string[] = [];
    page.on('request', (r) => void (r.method() === 'POST' && r.url().includes('/segments') && writes.push(r.url())));
    await second.getByLabel('Value', { exact: true }).fill('latest');
    await second.getByText('"latest" is not a version gt can compare').waitFor();
    await dialog.getByRole('button', { name: 'Create segment' }).click();
    expect(await second.getByLabel('Value', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    expect(writes).toEqual([]);
    await second.getByLabel('Value', { exact: true }).fill('9.5');
    await count.getByText('1 device').waitFor();
    await dialog.getByRole('button', { name: 'Create segment' }).click();
    await dialog.waitFor({ state: 'detached' });
    const row = page.getByRole('row', { name: /Pro on recent versions/ });
    await row.getByText('tags.plan = pro and appVersion > 9.5').waitFor();
    const saved = await h.get(`/projects/${projectId}/segments`, { token: admin.accessToken });
    expect(saved.body).toMatchObject([{ name: 'Pro on recent versions', description: null, filter: both }]);
    await check(page, 'segments-03-list');

    // Edited: any of the conditions, then a third one typed in the JSON view; back in the form.
    await page.getByRole('button', { name: 'Edit segment Pro on recent versions' }).click();
    await dialog.getByLabel('Name').fill('Pro or recent');
    await dialog.getByLabel('Any condition (or)').check();
    const either = await apiCount({ or: both.and });
    await showsCount(page, either);
    await dialog.getByRole('button', { name: 'JSON' }).click();
    const json = dialog.getByLabel('Filter (JSON)');
    expect(JSON.parse(await json.inputValue())).toEqual({ or: both.and });
    await check(page, 'segments-04-edit-json');
    const three = { or: [...both.and, { field: 'lastSeenAt', op: 'gte', value: { within: '30d' } }] };
    await json.fill(JSON.stringify(three));
    const all = await apiCount(three);
    expect(all.devices).toBe(5);
    await showsCount(page, all);
    // A nested filter cannot be shown as a form: it stays in the JSON view, with a note.
    await json.fill(JSON.stringify({ and: [three] }));
    await dialog.getByRole('button', { name: 'Form' }).click();
    await dialog.getByText('The form cannot show this filter').waitFor();
    await json.fill(JSON.stringify(three));
    await dialog.getByRole('button', { name: 'Form' }).click();
    const third = dialog.getByRole('group', { name: 'Condition 3' });
    expect(await third.getByLabel('Field').inputValue()).toBe('lastSeenAt');
    expect(await third.getByLabel('Value type').inputValue()).toBe('relative');
    expect(await third.getByLabel('Value', { exact: true }).inputValue()).toBe('30d');
    await dialog.getByRole('button', { name: 'Save segment' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('row', { name: /Pro or recent/ }).getByText('lastSeenAt ≥ 30d ago').waitFor();
    const edited = await h.get(`/projects/${projectId}/segments`, { token: admin.accessToken });
    expect(edited.body).toMatchObject([{ name: 'Pro or recent', filter: three }]);

    // A second segment may not take its name: the API's 409 is shown in the dialog.
    await page.getByRole('button', { name: 'New segment' }).click();
    await dialog.getByLabel('Name').fill('Pro or recent');
    await dialog.getByRole('group', { name: 'Condition 1' }).getByLabel('Value', { exact: true }).selectOption('web');
    await dialog.getByRole('button', { name: 'Create segment' }).click();
    const conflict = await h.post(`/projects/${projectId}/segments`, { token: admin.accessToken, body: { name: 'Pro or recent', filter: { field: 'platform', op: 'eq', value: 'web' } } });
    expect(conflict.status).toBe(409);
    await dialog.getByRole('alert').getByText(conflict.body.message).waitFor();
    await check(page, 'segments-05-name-taken');
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    // Deleted.
    await page.getByRole('button', { name: 'Delete segment Pro or recent' }).click();
    await page.getByRole('button', { name: 'Delete segment', exact: true }).click();
    await page.getByRole('heading', { name: 'No segments yet' }).waitFor();
    expect((await h.get(`/projects/${projectId}/segments`, { token: admin.accessToken })).body).toEqual([]);
    expect(page.problems).toEqual([]);
    await context.close();
  });

  it('a team member sees the segments and their counts, with no way to change them', async () => {
    const created = await h.post(`/projects/${projectId}/segments`, {
      token: admin.accessToken,
      body: { name: 'Android', description: 'Every Android device', filter: { field: 'platform', op: 'eq', value: 'android' } },
    });
    expect(created.status).toBe(201);
    const member = await h.user();
    await addMember(h, projectId, member);
    const { context, page } = await newPage(browser);
    await signIn(page, member.email, member.password);
    await page.goto(`${h.url}/p/${projectId}/segments`);
    await page.getByText('Only project admins can create, change or delete segments.').waitFor();
    expect(await page.getByRole('button', { name: 'New segment' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^(Edit|Delete) segment/ }).count()).toBe(0);
    await page.getByRole('button', { name: 'View segment Android' }).click();
    const dialog = page.getByRole('dialog');
    const android = await apiCount({ field: 'platform', op: 'eq', value: 'android' });
    await showsCount(page, android);
    expect(await dialog.getByRole('group', { name: 'Condition 1' }).getByLabel('Value', { exact: true }).isDisabled()).toBe(true);
    await check(page, 'segments-06-member-view');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await context.close();
  });
});
