import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Request } from 'playwright-core';
import { DASHBOARD_DIR } from '../../apps/api/src/dashboard/serve';
import { addMember } from '../fixtures';
import { unique } from '../harness';
import { startPipeline, type Pipeline } from '../pipeline';
import { check, CHROMIUM, type DashboardPage, launch, newPage } from './browser';

/**
 * Broadcasts, local time and settings in a real Chromium against the real API (which serves the
 * dashboard), worker, Postgres, Redis and FCM emulator: a broadcast composed to a saved segment and
 * followed to its end, a staged rollout halted by its dead tokens and resumed from its page, the
 * project settings form, and a test push at a local time, held and then canceled from its page. Every page is checked with axe-core and at a phone's width.
 */
let p: Pipeline;
let browser: Browser;
let t: Awaited<ReturnType<Pipeline['project']>>;
/** Devices of the seeded audience: every other one is on the pro plan. */
const SEEDED = 240;
const PRO = SEEDED / 2;
let prefix = '';

jest.setTimeout(180_000);

beforeAll(async () => {
  if (!existsSync(path.join(DASHBOARD_DIR, 'index.html'))) throw new Error(`${DASHBOARD_DIR} has no build: run pnpm build`);
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium package (apt-get install chromium)`);
  // A database of its own, so that no other suite's worker weighs this one's rollout (it would release the
  // next stage to its own queue and emulator), swept daily as on the run's database.
  p = await startPipeline({ SWEEP_INTERVAL_MS: String(24 * 3600 * 1000) }, {}, { ownDatabase: true });
  await p.startWorker();
  browser = await launch();
  t = await p.project();
  // Seeded in Postgres: registering them one by one through the API would only slow the test down.
  prefix = unique('dash');
  const devices = Array.from({ length: SEEDED }, (_, i) => ({
    projectId: t.project.id,
    userId: `${prefix}-u${Math.floor(i / 2)}`,
    deviceToken: `${prefix}-${i}`,
    provider: 'fcm',
    platform: i % 4 === 0 ? 'ios' : 'android',
    tags: { plan: i % 2 === 0 ? 'pro' : 'free' },
  }));
  await p.h.db.device.createMany({ data: devices });
});

afterAll(async () => {
  await browser?.close();
  await p?.close();
});

async function signedIn(who: { email: string; password: string } = t.owner) {
  const { context, page } = await newPage(browser);
  await page.goto(`${p.h.url}/signin`);
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Projects', exact: true }).waitFor();
  return { context, page };
}

/** The requests the page makes with this method to this path of the API (their bodies are streams the browser does not show). */
function requests(page: DashboardPage, method: string, pathname: string) {
  const seen: string[] = [];
  page.on('request', (r: Request) => void (r.method() === method && new URL(r.url()).pathname === pathname && seen.push(r.url())));
  return seen;
}

const auth = () => ({ token: t.owner.accessToken, query: { projectId: t.project.id } });

/** Fills the composer: the first template with its variables, to the devices whose tag `key` is `value`. */
async function composeToTag(page: DashboardPage, key: string, value: string) {
  await page.getByLabel('Template', { exact: true }).selectOption({ index: 1 });
  await page.getByLabel('name', { exact: true }).fill('Ada');
  await page.getByLabel('count', { exact: true }).fill('3');
  await page.getByLabel('Devices that match a filter').check();
  const condition = page.getByRole('group', { name: 'Condition 1' });
  await condition.getByLabel('Field').selectOption('tag');
  await condition.getByLabel('Tag key').fill(key);
  await condition.getByLabel('Value', { exact: true }).fill(value);
}

describe('broadcasts, local time and settings in a real browser', () => {
  it('composes a broadcast to a saved segment, counts it, and follows it to its end', async () => {
    const segment = await p.h.post(`/projects/${t.project.id}/segments`, { token: t.owner.accessToken, body: { name: 'Pro plan', filter: { field: 'tags.plan', op: 'eq', value: 'pro' } } });
    expect(segment.status).toBe(201);
    const { context, page } = await signedIn();
    const broadcasts = requests(page, 'POST', '/push/broadcast');
    await page.goto(`${p.h.url}/p/${t.project.id}`);
    await page.getByRole('link', { name: 'Broadcast', exact: true }).click();
    await page.getByRole('heading', { name: 'Broadcast' }).waitFor();
    await check(page, 'broadcast-01-new');

    // Nothing chosen: the form names what is missing, and nothing is sent.
    await page.getByRole('button', { name: 'Send broadcast' }).click();
    await page.getByLabel('Template', { exact: true }).and(page.locator('[aria-invalid="true"]')).waitFor();
    expect(await page.getByLabel('Segment', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    expect(broadcasts).toEqual([]);

    // A filter instead: the segments page's form, with its live count.
    await composeToTag(page, 'plan', 'free');
    await page.getByTestId('audience-count').filter({ hasText: `${SEEDED - PRO} devices${SEEDED - PRO} usersandroid ${SEEDED - PRO}ios 0web 0` }).waitFor();
    await page.getByLabel('A saved segment').check();
    await page.getByLabel('Segment', { exact: true }).selectOption({ label: 'Pro plan' });

    // The dry run is the API's count of the segment.
    const count = await p.h.post('/push/audience/count', { ...auth(), body: { segmentId: segment.body.id } });
    expect(count.body).toEqual({ devices: PRO, users: PRO, byPlatform: { android: PRO / 2, ios: PRO / 2, web: 0 } });
    await page.getByRole('button', { name: 'Count the audience' }).click();
    const figures = page.getByTestId('audience-count');
    await figures.filter({ hasText: `${PRO} devices${PRO} usersandroid ${PRO / 2}ios ${PRO / 2}web 0` }).waitFor();

    // With a local time, the dry run also says when the devices get it, by hour, and how many have
    // no zone of their own (all of these: they follow the project's default).
    await page.getByLabel('Deliver at a local time').check();
    await page.getByLabel('Local time', { exact: true }).fill('09:00');
    await page.getByText('The form changed since: count again').waitFor();
    await page.getByRole('button', { name: 'Count the audience' }).click();
    const timed = await p.h.post('/push/audience/count', { ...auth(), body: { segmentId: segment.body.id, deliverAt: { localTime: '09:00' } } });
    expect(timed.body.deliveryHours).toMatchObject({ defaultZoneDevices: PRO, hours: [{ devices: PRO }] });
    await page.getByText(`${PRO} devices have no time zone of their own`).waitFor();
    const hours = page.getByRole('table', { name: 'Devices by delivery hour' }).locator('tbody tr');
    expect(await hours.count()).toBe(1);
    expect(await hours.locator('td').last().textContent()).toBe(String(PRO));
    await page.getByLabel('Deliver at a local time').uncheck();

    // A staged rollout's fields are checked before anything is sent; left off for this send.
    await page.getByLabel('Send in stages, and halt when a stage goes wrong').check();
    await page.getByLabel('Stages (% of the audience)').fill('10, 50');
    await page.getByText('The last stage must be 100').waitFor();
    await page.getByLabel('Halt above this failure rate (%)').fill('150');
    await page.getByRole('button', { name: 'Send broadcast' }).click();
    await page.getByText('A percentage from 0 to 100').waitFor();
    expect(broadcasts).toEqual([]);
    await check(page, 'broadcast-02-composed');
    await page.getByLabel('Send in stages, and halt when a stage goes wrong').uncheck();

    await page.getByRole('button', { name: 'Send broadcast' }).click();
    await page.waitForURL(/\/notifications\/[0-9a-f-]{36}$/);
    const notificationId = /\/notifications\/([0-9a-f-]{36})$/.exec(page.url())![1];
    expect(broadcasts).toHaveLength(1);

    // Followed until it ends: the page's figures are the API's.
    await page.getByTestId('notification-status').getByText('completed').waitFor({ timeout: 60_000 });
    const done = await p.h.get(`/push/notifications/${notificationId}`, auth());
    expect(done.body).toMatchObject({ status: 'completed', audience: { segmentId: segment.body.id }, stats: { devices: PRO, sent: PRO, failed: 0 }, progress: { planned: PRO, sent: PRO, failed: 0, pending: 0, fannedOut: true } });
    expect(done.body.deliverAt).toBeUndefined();
    // The variables typed in the form, in every message.
    const messages = p.emulator.received().filter((m) => m.token?.startsWith(prefix));
    expect(messages).toHaveLength(PRO);
    expect(new Set(messages.map((m) => JSON.stringify(m.message?.notification)))).toEqual(new Set([JSON.stringify({ title: 'Hello Ada', body: 'You have 3 new messages' })]));
    const progress = page.getByTestId('broadcast-progress');
    await progress.getByText('Every device of the audience is planned.').waitFor();
    expect(await progress.getByRole('progressbar').getAttribute('aria-valuetext')).toBe(`${PRO} of ${PRO} planned devices`);
    expect((await progress.locator('.stat-value').allTextContents()).map(Number)).toEqual([PRO, PRO, 0, 0]);
    await page.getByText('To the segment Pro plan (tags.plan = pro).').waitFor();
    expect(await page.getByRole('button', { name: 'Cancel notification' }).count()).toBe(0);
    await check(page, 'broadcast-03-completed');

    // Its deliveries a page at a time.
    const rows = page.getByRole('table', { name: 'Deliveries' }).locator('tbody tr');
    expect(await rows.count()).toBe(done.body.deliveries.length);
    await page.getByRole('navigation', { name: 'Delivery pages' }).getByRole('button', { name: 'Next' }).click();
    await page.getByText('Page 2').waitFor();
    const next = await p.h.get(`/push/notifications/${notificationId}`, { ...auth(), query: { ...auth().query, deliveriesAfter: done.body.nextDeliveriesAfter } });
    await rows.first().getByText(next.body.deliveries[0].userId, { exact: true }).waitFor();
    expect(await rows.count()).toBe(next.body.deliveries.length);
    expect(PRO - done.body.deliveries.length).toBe(next.body.deliveries.length);
    expect(page.problems).toEqual([]);
    await context.close();
  });

  it('saves the default time zone and quiet hours, refuses a window that starts where it ends, and shows them to members', async () => {
    const { context, page } = await signedIn();
    const puts = requests(page, 'PUT', `/projects/${t.project.id}/settings`);
    await page.goto(`${p.h.url}/p/${t.project.id}`);
    await page.getByRole('link', { name: 'Settings' }).click();
    const zone = page.getByLabel('Default time zone');
    await zone.waitFor();
    expect(await zone.inputValue()).toBe('UTC');
    expect(await page.getByLabel('Hold deliveries during quiet hours').isChecked()).toBe(false);
    await check(page, 'settings-01-defaults');

    await zone.selectOption('Europe/Berlin');
    await page.getByLabel('Hold deliveries during quiet hours').check();
    await page.getByLabel('Quiet hours start').fill('22:00');
    await page.getByLabel('Quiet hours end').fill('22:00');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('quietHours.start must differ from quietHours.end').waitFor();
    expect(await page.getByLabel('Quiet hours end').getAttribute('aria-invalid')).toBe('true');
    expect(puts).toEqual([]);

    await page.getByLabel('Quiet hours end').fill('07:30');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Settings saved.').waitFor();
    expect(puts).toHaveLength(1);
    const saved = await p.h.get(`/projects/${t.project.id}/settings`, { token: t.owner.accessToken });
    expect(saved.body).toMatchObject({ defaultTimezone: 'Europe/Berlin', quietHours: { start: '22:00', end: '07:30' } });
    await check(page, 'settings-02-saved');

    // Read back after a reload; quiet hours turned off again.
    await page.reload();
    await zone.waitFor();
    expect(await zone.inputValue()).toBe('Europe/Berlin');
    expect(await page.getByLabel('Quiet hours end').inputValue()).toBe('07:30');
    const deliveryId = page.getByLabel(/Put each delivery.s id in its message/);
    expect(await deliveryId.isChecked()).toBe(true);
    await page.getByLabel('Hold deliveries during quiet hours').uncheck();
    await deliveryId.uncheck();
    await zone.selectOption('UTC');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Settings saved.').waitFor();
    const off = await p.h.get(`/projects/${t.project.id}/settings`, { token: t.owner.accessToken });
    expect(off.body).toMatchObject({ defaultTimezone: 'UTC', quietHours: null, deliveryIdInData: false });
    expect(page.problems).toEqual([]);
    await context.close();

    // A team member reads them, with no way to change them.
    const member = await p.h.user();
    await addMember(p.h, t.project.id, member);
    const view = await signedIn(member);
    await view.page.goto(`${p.h.url}/p/${t.project.id}/settings`);
    await view.page.getByText('Only project admins can change the settings.').waitFor();
    expect(await view.page.getByLabel('Default time zone').isDisabled()).toBe(true);
    expect(await view.page.getByRole('button', { name: 'Save settings' }).count()).toBe(0);
    await check(view.page, 'settings-03-member');
    await view.context.close();
  });

  it('sends a test push at a local time: held on its page with its due time, until canceled there', async () => {
    const userId = unique('local');
    const reg = await p.h.post('/push/register-device', { apiKey: t.apiKey.key, body: { userId, deviceToken: unique('tok'), provider: 'fcm', platform: 'android', timezone: 'UTC' } });
    expect(reg.status).toBe(201);
    // Two hours from now in the device's zone (UTC): held, not sent. Quiet hours around that time
    // would hold it half an hour longer: only "ignore quiet hours" keeps it at the time asked for.
    const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);
    const due = Date.now() + 2 * 3600_000;
    const localTime = hhmm(due);
    const quiet = await p.h.put(`/projects/${t.project.id}/settings`, { token: t.owner.accessToken, body: { quietHours: { start: hhmm(due - 1800_000), end: hhmm(due + 1800_000) } } });
    expect(quiet.status).toBe(200);
    const { context, page } = await signedIn();
    const sends = requests(page, 'POST', '/push/send');
    await page.goto(`${p.h.url}/p/${t.project.id}/send`);
    await page.getByLabel('Template', { exact: true }).selectOption({ index: 1 });
    await page.getByLabel('User id').fill(userId);
    await page.getByLabel('Deliver at a local time').check();
    await page.getByLabel('Local time', { exact: true }).fill(localTime);
    await page.getByLabel('Ignore quiet hours').check();
    await check(page, 'send-local-time-01-form');
    await page.getByRole('button', { name: 'Send push' }).click();

    const sent = page.getByRole('region', { name: 'Sent notification' });
    expect(sends).toHaveLength(1);
    const held = sent.getByRole('table', { name: 'Deliveries' }).getByRole('row', { name: new RegExp(userId) });
    await held.getByText('held').waitFor({ timeout: 30_000 });
    const notificationId = /notifications\/([0-9a-f-]{36})$/.exec((await sent.getByRole('link', { name: 'Open in the log' }).getAttribute('href'))!)![1];
    const api = await p.h.get(`/push/notifications/${notificationId}`, auth());
    expect(api.body).toMatchObject({ deliverAt: { localTime }, stats: { held: 1, sent: 0 }, deliveries: [{ userId, status: 'held' }] });
    expect(new Date(api.body.deliveries[0].notBefore).toISOString().slice(11, 16)).toBe(localTime);
    await held.getByText(new Date(api.body.deliveries[0].notBefore).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' })).waitFor();
    await sent.getByText(`Delivered at ${localTime} in each device’s time zone`).waitFor();
    const stats = sent.getByTestId('notification-stats');
    await stats.getByText('Held').waitFor();
    await check(page, 'send-local-time-02-held');

    // Canceled from the page: the held delivery is never sent.
    await sent.getByRole('button', { name: 'Cancel notification' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Cancel notification' }).click();
    await sent.getByTestId('notification-status').getByText('canceled').waitFor();
    await held.getByText('canceled').waitFor();
    const canceled = await p.h.get(`/push/notifications/${notificationId}`, auth());
    expect(canceled.body).toMatchObject({ status: 'canceled', deliveries: [{ status: 'canceled' }] });
    expect(page.problems).toEqual([]);
    await context.close();
  });

  it('composes a staged rollout that halts after a stage of dead tokens, and resumes it from its page', async () => {
    // An audience of its own: 100 devices, two in five with tokens the emulator answers UNREGISTERED.
    const cohort = unique('cohort');
    await p.h.db.device.createMany({
      data: Array.from({ length: 100 }, (_, i) => ({
        projectId: t.project.id,
        userId: `${cohort}-u${i}`,
        deviceToken: i % 5 < 2 ? `unregistered-${cohort}-${i}` : `${cohort}-${i}`,
        provider: 'fcm',
        platform: 'android',
        tags: { cohort },
      })),
    });
    const { context, page } = await signedIn();
    await page.goto(`${p.h.url}/p/${t.project.id}`);
    await page.getByRole('link', { name: 'Broadcast', exact: true }).click();
    await page.getByRole('heading', { name: 'Broadcast' }).waitFor();
    await composeToTag(page, 'cohort', cohort);
    await page.getByLabel('Send in stages, and halt when a stage goes wrong').check();
    await page.getByLabel('Stages (% of the audience)').fill('30, 100');
    await page.getByLabel('Wait after each stage (seconds)').fill('0');
    await page.getByLabel('Halt above this failure rate (%)').fill('');
    await page.getByLabel('Halt above this invalid-token rate (%)').fill('20');
    await page.getByRole('button', { name: 'Send broadcast' }).click();
    await page.waitForURL(/\/notifications\/[0-9a-f-]{36}$/);
    const notificationId = /\/notifications\/([0-9a-f-]{36})$/.exec(page.url())![1];

    // Halted after the first stage: the page shows why, and the stage's figures are the API's.
    await page.getByTestId('notification-status').getByText('halted').waitFor({ timeout: 60_000 });
    const halted = await p.h.get(`/push/notifications/${notificationId}`, auth());
    expect(halted.body).toMatchObject({ status: 'halted', rollout: { stages: [30, 100], currentStage: 0, haltWhen: { invalidTokenRate: 0.2 } } });
    const rollout = page.getByTestId('rollout');
    await rollout.getByText(halted.body.rollout.haltReason).waitFor();
    const [first] = halted.body.rollout.stageFigures;
    expect(first.invalidTokens / first.devices).toBeGreaterThan(0.2);
    await check(page, 'broadcast-rollout-01-halted');

    await page.getByRole('button', { name: 'Resume rollout' }).click();
    await page.getByTestId('notification-status').getByText('partially failed').waitFor({ timeout: 60_000 });
    const done = await p.h.get(`/push/notifications/${notificationId}`, auth());
    expect(done.body).toMatchObject({ status: 'partially_failed', stats: { devices: 100, sent: 60, failed: 40, invalidTokensRemoved: 40 }, rollout: { currentStage: 1, haltReason: null } });
    const live = p.emulator.received().filter((m) => m.token?.startsWith(`${cohort}-`));
    expect(live).toHaveLength(60);
    expect(new Set(live.map((m) => m.token)).size).toBe(60);
    expect(page.problems).toEqual([]);
    await context.close();
  });

  it('looks right on the audit log, API keys, template engagement and notification pages', async () => {
    const { context, page } = await signedIn();
    await page.goto(`${p.h.url}/p/${t.project.id}/audit-log`);
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    await page.getByRole('table').waitFor();
    await check(page, 'look-audit-log');
    await page.goto(`${p.h.url}/p/${t.project.id}/keys`);
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByRole('table').waitFor();
    await check(page, 'look-api-keys');
    await page.goto(`${p.h.url}/p/${t.project.id}/templates/${t.templateId}/engagement`);
    await page.getByRole('heading').first().waitFor();
    await check(page, 'look-template-engagement');
    await page.goto(`${p.h.url}/p/${t.project.id}/notifications`);
    await page.getByRole('table', { name: 'Notifications' }).waitFor();
    await check(page, 'look-notifications');
    await page.getByRole('table', { name: 'Notifications' }).getByRole('link').last().click();
    await page.getByTestId('engagement-funnel').waitFor();
    await check(page, 'look-notification-funnel');
    await context.close();
  });
});
