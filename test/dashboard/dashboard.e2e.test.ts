import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { Browser } from 'playwright-core';
import { httpRequest, PASSWORD, unique, uniqueEmail } from '../harness';
import { serviceAccount } from '../credentials';
import { startPipeline, type Pipeline } from '../pipeline';
import { DASHBOARD_DIR } from '../../apps/api/src/dashboard/serve';
import { check, CHROMIUM, launch, newPage, SCREENSHOTS } from './browser';
import { waitUntil } from '../wait';

/**
 * The built dashboard in a real Chromium, against the real API (which serves it), worker, Postgres,
 * Redis, SMTP server and FCM emulator. One stack and one browser for every flow; each flow has its
 * own browser profile. Screenshots of every page at 1280 px and 390 px go to artifacts/screenshots/.
 */
let p: Pipeline;
let browser: Browser;
const admin = { email: uniqueEmail('grace'), password: PASSWORD, firstName: 'Grace', lastName: 'Hopper' };
const projectName = 'Acme mobile app';
let projectId = '';
let templateId = '';

jest.setTimeout(120_000);

beforeAll(async () => {
  if (!existsSync(path.join(DASHBOARD_DIR, 'index.html'))) throw new Error(`${DASHBOARD_DIR} has no build: run pnpm build`);
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium package (apt-get install chromium), as .ci/run does`);
  p = await startPipeline();
  await p.startWorker();
  browser = await launch();
  console.log(`dashboard screenshots: ${SCREENSHOTS}`);
});

afterAll(async () => {
  await browser?.close();
  await p?.close();
});

async function streamText(stream: Readable) {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

const link = (mailText: string, path: string) => {
  const m = new RegExp(`https?://[^\\s"']+${path}\\?token=[\\w%-]+`).exec(mailText);
  if (!m) throw new Error(`no ${path} link in ${mailText}`);
  const url = new URL(m[0]);
  // The link's path and token, opened on this test's API (APP_URL names a host that does not resolve here).
  return `${p.h.url}${url.pathname}${url.search}`;
};

describe('dashboard in a real browser', () => {
  it('sign up → project → provider from a service-account file → template with preview → API key → device → test push completed', async () => {
    const { context, page } = await newPage(browser);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: p.h.url });

    // Signed out, / leads to sign-in.
    await page.goto(`${p.h.url}/`);
    await page.getByRole('heading', { name: 'Sign in to Herald' }).waitFor();
    await check(page, '01-sign-in');
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByLabel('First name').fill(admin.firstName);
    await page.getByLabel('Last name').fill(admin.lastName);
    await page.getByLabel('Email').fill(admin.email);
    await page.getByLabel('Password').fill(admin.password);
    await check(page, '02-sign-up');
    await page.getByRole('button', { name: 'Create account' }).click();

    // Projects: empty, then one created.
    await page.getByRole('heading', { name: 'No projects yet' }).waitFor();
    await check(page, '03-projects-empty');
    await page.getByRole('button', { name: 'New project' }).first().click();
    await page.getByLabel('Project name').fill(projectName);
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.waitForURL(/\/p\/[0-9a-f-]{36}$/);
    projectId = /\/p\/([0-9a-f-]{36})/.exec(page.url())![1];
    await page.getByRole('heading', { name: 'Get started' }).waitFor();
    await check(page, '04-overview-empty');

    // Push config, then a provider from the service-account file Firebase hands out.
    const account = serviceAccount();
    p.emulator.addServiceAccount({ projectId: account.projectId, clientEmail: account.clientEmail, publicKey: account.publicKey });
    await page.getByRole('link', { name: 'Push providers' }).click();
    await page.getByRole('button', { name: 'Set up push' }).click();
    await page.getByRole('heading', { name: 'No providers yet' }).waitFor();
    await page.getByRole('button', { name: 'Add FCM provider' }).first().click();
    const file = { type: 'service_account', project_id: account.projectId, private_key_id: 'k1', private_key: account.privateKey, client_email: account.clientEmail, client_id: '1' };
    await page.getByLabel('Service-account key file').setInputFiles({ name: 'service-account.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(file)) });
    await page.getByText(account.clientEmail).waitFor();
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe(`FCM ${account.projectId}`);
    await check(page, '05-provider-add');
    await page.getByRole('button', { name: 'Add provider' }).click();
    const row = page.getByRole('row', { name: new RegExp(`FCM ${account.projectId}`) });
    await row.waitFor();
    expect(await row.textContent()).toContain('********');
    expect(await page.content()).not.toContain('PRIVATE KEY');
    await row.getByRole('button', { name: /^Test/ }).click();
    await page.getByText('Credentials accepted by Google.').waitFor();
    await check(page, '06-providers');
    // A second provider (through the API), moved first with the arrows: the bulk priorities endpoint.
    const tokens = await p.h.signin(admin.email, admin.password);
    const second = await p.h.post('/push-config/providers', {
      token: tokens.accessToken,
      query: { projectId },
      body: { provider: 'fcm', name: 'Backup account', priority: 5, config: { projectId: account.projectId, clientEmail: account.clientEmail, privateKey: account.privateKey } },
    });
    expect(second.status).toBe(201);
    await page.reload();
    await page.getByRole('button', { name: 'Move Backup account up' }).click();
    // The arrows are disabled while the change is saved; the first provider's "up" stays disabled for
    // good. Done when the other one's "up" is enabled again: saved, and the list reloaded in its new order.
    await page.getByRole('button', { name: 'Move Backup account up' }).and(page.locator(':disabled')).waitFor();
    await page.getByRole('button', { name: `Move FCM ${account.projectId} up` }).and(page.locator(':enabled')).waitFor();
    const order = await p.h.get('/push-config/providers', { token: tokens.accessToken, query: { projectId } });
    expect(order.body.map((x: { name: string; priority: number }) => [x.name, x.priority])).toEqual([['Backup account', 1], [`FCM ${account.projectId}`, 2]]);

    // A template, previewed by the API with sample values typed in.
    await page.getByRole('link', { name: 'Templates' }).click();
    await page.getByRole('heading', { name: 'No templates yet' }).waitFor();
    await page.getByRole('link', { name: 'New template' }).first().click();
    await page.getByLabel('Name', { exact: true }).fill('order-shipped');
    await page.getByLabel('Title').fill('Hello {{name}}');
    await page.getByLabel('Body', { exact: true }).fill('Your order {{order.id}} has shipped');
    await page.getByLabel('Detected variables').getByText('order.id').waitFor();
    await page.getByRole('button', { name: 'Create template' }).click();
    await page.waitForURL(/\/templates\/[0-9a-f-]{36}$/);
    templateId = /templates\/([0-9a-f-]{36})/.exec(page.url())![1];
    await page.getByLabel('Sample value for name').fill('Ada');
    await page.getByLabel('Sample value for order.id').fill('1234');
    await page.getByTestId('preview').getByText('Your order 1234 has shipped').waitFor();
    expect(await page.getByTestId('preview').textContent()).toContain('Hello Ada');
    await check(page, '07-template-editor');
    await page.getByRole('link', { name: '← All templates' }).click();
    await page.getByRole('link', { name: 'order-shipped' }).waitFor();
    await check(page, '08-templates');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export' }).click()]);
    const exported = JSON.parse(await streamText(await download.createReadStream()));
    expect(exported).toMatchObject({ projectId, totalTemplates: 1, templates: [{ name: 'order-shipped', title: 'Hello {{name}}' }] });
    await page.getByRole('button', { name: 'Import' }).click();
    await page.getByLabel('Export file (.json)').setInputFiles({ name: 'templates.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(exported)) });
    await page.getByLabel('Replace it (overwrite)').check();
    await page.getByRole('button', { name: 'Import', exact: true }).last().click();
    await page.getByText('0 imported, 1 updated, 0 skipped.').waitFor();
    await page.getByRole('button', { name: 'Done' }).click();

    // An API key, shown once with a copy button.
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('button', { name: 'Create API key' }).first().click();
    await page.getByLabel('Key name').fill('production backend');
    // Everything but sending: this backend registers devices only.
    await page.getByRole('checkbox', { name: 'send', exact: true }).uncheck();
    await page.getByLabel('Expires (optional)').fill('2030-01-01T12:00');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = page.getByTestId('once-secret');
    const key = (await secret.textContent())!;
    await page.getByText('you will not see it again').waitFor();
    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(key);
    await check(page, '09-api-key-created');
    await page.getByRole('button', { name: 'I have copied the key' }).click();
    await page.getByRole('cell', { name: 'production backend', exact: true }).waitFor();
    expect(await page.content()).not.toContain(key);
    await check(page, '10-api-keys');
    const keySwitch = page.getByRole('switch', { name: 'Disable key production backend' });
    await keySwitch.click();
    await page.getByRole('switch', { name: 'Enable key production backend' }).waitFor();
    const refused = await httpRequest(p.h.url, 'GET', `/projects/${projectId}`, { apiKey: key });
    expect(refused.status).toBe(401);
    expect(refused.body.message).toBe('API key is disabled');
    await page.getByRole('switch', { name: 'Enable key production backend' }).click();
    await page.getByRole('switch', { name: 'Disable key production backend' }).waitFor();

    // The customer's backend registers a device with that key.
    const deviceToken = unique('tok');
    const reg = await httpRequest(p.h.url, 'POST', '/push/register-device', { apiKey: key, body: { userId: 'user-42', deviceToken, provider: 'fcm', platform: 'android' } });
    expect(reg.status).toBe(201);
    const send = await httpRequest(p.h.url, 'POST', '/push/send', { apiKey: key, body: { userId: 'user-42', title: 'Hi', body: 'There' } });
    expect(send.status).toBe(403);
    expect(send.body.message).toBe('This API key lacks the send scope');
    await page.getByRole('link', { name: 'Devices' }).click();
    await page.getByLabel('User id').fill('user-42');
    await page.getByRole('button', { name: 'Look up devices' }).click();
    await page.getByTitle(deviceToken).waitFor();
    await check(page, '11-devices');

    // The keys page shows the key's scopes, its expiry and (once written, off the request path) its last use.
    const stored = await waitUntil(async () => {
      const row = await p.h.db.apiKey.findFirst({ where: { projectId, name: 'production backend' } });
      return row?.lastUsedAt ? row : null;
    }, 5000, 'the key\'s lastUsedAt');
    expect(stored.scopes).not.toContain('send');
    expect(stored.expiresAt?.getUTCFullYear()).toBe(2030);
    await page.goto(`${p.h.url}/p/${projectId}/keys`);
    const keyRow = page.getByRole('row', { name: /production backend/ });
    await keyRow.getByRole('cell', { name: 'devices:write, devices:read, notifications:read, templates:read, templates:write, events:write', exact: true }).waitFor();
    await keyRow.getByRole('cell', { name: /2030/ }).waitFor();
    expect(await keyRow.getByRole('cell', { name: 'Never', exact: true }).count()).toBe(0);

    // Its scopes and expiry change in place: sending allowed, templates:write taken away, a later expiry.
    await page.getByRole('button', { name: 'Edit key production backend' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit production backend' });
    expect(await edit.getByRole('checkbox', { name: 'send', exact: true }).isChecked()).toBe(false);
    expect(await edit.getByLabel('Expires', { exact: true }).inputValue()).toBe('2030-01-01T12:00');
    await edit.getByRole('checkbox', { name: 'send', exact: true }).check();
    await edit.getByRole('checkbox', { name: 'templates:write', exact: true }).uncheck();
    // An expiry in the past is refused in the API's words, and nothing is sent.
    await edit.getByLabel('Expires', { exact: true }).fill('2020-01-01T12:00');
    await edit.getByRole('button', { name: 'Save key' }).click();
    await edit.getByText('expiresAt must be in the future').waitFor();
    await check(page, '10a-api-key-edit');
    await edit.getByLabel('Expires', { exact: true }).fill('2031-06-01T09:30');
    await edit.getByRole('button', { name: 'Save key' }).click();
    await edit.waitFor({ state: 'detached' });
    await keyRow.getByRole('cell', { name: 'devices:write, devices:read, send, notifications:read, templates:read, events:write', exact: true }).waitFor();
    await keyRow.getByRole('cell', { name: /2031/ }).waitFor();
    const edited = await p.h.db.apiKey.findFirstOrThrow({ where: { projectId, name: 'production backend' } });
    expect(edited.scopes).toContain('send');
    expect(edited.scopes).not.toContain('templates:write');
    expect(edited.expiresAt?.toISOString()).toBe('2031-06-01T09:30:00.000Z');
    await check(page, '10b-api-key-edited');
    // "Never expires" removes the expiry; the dialog opens on the key as it now is.
    await page.getByRole('button', { name: 'Edit key production backend' }).click();
    expect(await edit.getByLabel('Expires', { exact: true }).inputValue()).toBe('2031-06-01T09:30');
    expect(await edit.getByRole('checkbox', { name: 'templates:write', exact: true }).isChecked()).toBe(false);
    await edit.getByRole('checkbox', { name: 'Never expires' }).check();
    await edit.getByRole('button', { name: 'Save key' }).click();
    await edit.waitFor({ state: 'detached' });
    await keyRow.getByRole('cell', { name: 'Never', exact: true }).waitFor();
    expect((await p.h.db.apiKey.findFirstOrThrow({ where: { projectId, name: 'production backend' } })).expiresAt).toBeNull();

    // The audit log: the key's creation and its disabling and enabling, filtered by action.
    await page.getByRole('link', { name: 'Audit log' }).click();
    const table = page.getByRole('table', { name: 'Audit entries' });
    await table.getByRole('cell', { name: 'api_key.created', exact: true }).waitFor();
    await page.getByLabel('Action').selectOption('api_key.updated');
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await table.getByRole('cell', { name: 'api_key.created', exact: true }).waitFor({ state: 'detached' });
    // Disabled, enabled, scopes and expiry changed, expiry removed.
    expect(await table.getByRole('cell', { name: 'api_key.updated', exact: true }).count()).toBe(4);
    await table.getByText('true → false').waitFor();
    await page.getByLabel('Action').selectOption('api_key.created');
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await table.getByRole('cell', { name: 'api_key.updated', exact: true }).first().waitFor({ state: 'detached' });
    expect(await table.getByRole('cell', { name: 'api_key.created', exact: true }).count()).toBe(1);
    await table.getByText('null → "production backend"').waitFor();
    // By who made the change: no entry of this action was made by Herald itself.
    await page.getByLabel('Actor type').selectOption('system');
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await page.getByText('No change matches these filters.').waitFor();
    await page.getByLabel('Actor type').selectOption('user');
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await table.getByRole('cell', { name: 'api_key.created', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Verify the chain' }).click();
    await page.getByText(/The chain is whole: \d+ entries\./).waitFor();
    await check(page, '11a-audit-log');

    // A test push from the dashboard, followed to `completed` with the device's delivery.
    await page.getByRole('link', { name: 'Send a test push' }).first().click();
    await page.getByLabel('Template').selectOption(templateId);
    await page.getByLabel('User id').fill('user-42');
    await page.getByLabel('name', { exact: true }).fill('Ada');
    await page.getByLabel('order.id', { exact: true }).fill('1234');
    await page.getByRole('button', { name: 'Send push' }).click();
    await page.getByTestId('notification-status').getByText('completed').waitFor({ timeout: 30_000 });
    const delivery = page.getByRole('row', { name: /user-42/ });
    expect(await delivery.textContent()).toMatch(/android.*sent.*Backup account/);
    const received = p.emulator.received({ token: deviceToken });
    expect(received).toHaveLength(1);
    expect(received[0].message).toMatchObject({ notification: { title: 'Hello Ada', body: 'Your order 1234 has shipped' } });
    await check(page, '12-send-completed');

    await page.getByRole('link', { name: 'Notifications' }).click();
    await page.getByRole('row', { name: /completed/ }).waitFor();
    await check(page, '13-notifications');
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.getByText('Sent, 24 h').waitFor();
    await page.getByRole('img', { name: /Deliveries per hour, last 24 hours: 1 sent, 0 failed/ }).waitFor();
    await check(page, '14-overview');

    // The device unregistered from the dashboard: gone for the next send.
    await page.getByRole('link', { name: 'Devices' }).click();
    await page.getByLabel('User id').fill('user-42');
    await page.getByRole('button', { name: 'Look up devices' }).click();
    await page.getByRole('button', { name: /^Unregister android device/ }).click();
    await page.getByRole('button', { name: 'Unregister', exact: true }).click();
    await page.getByRole('heading', { name: 'No devices for this user' }).waitFor();
    expect((await httpRequest(p.h.url, 'GET', '/push/devices/user-42', { token: tokens.accessToken, query: { projectId } })).body).toEqual([]);

    // The API's refusal shows in the edit dialog: here the key was deleted elsewhere while it was open.
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('button', { name: 'Edit key production backend' }).click();
    const editing = page.getByRole('dialog', { name: 'Edit production backend' });
    await editing.getByRole('checkbox', { name: 'events:write', exact: true }).uncheck();
    const deleted = await httpRequest(p.h.url, 'DELETE', `/projects/${projectId}/api-keys/${edited.id}`, { token: tokens.accessToken });
    expect(deleted.status).toBe(200);
    await editing.getByRole('button', { name: 'Save key' }).click();
    await editing.getByText('API key not found').waitFor();
    await check(page, '15-api-key-edit-refused');
    await editing.getByRole('button', { name: 'Cancel' }).click();
    await editing.waitFor({ state: 'detached' });
    expect(page.problems).toEqual([]);
    await context.close();
  });

  it('invites a teammate by e-mail; the link registers them, and a team_member sees no admin actions', async () => {
    expect(projectId).not.toBe('');
    const { context, page } = await newPage(browser);
    await page.goto(`${p.h.url}/signin`);
    await page.getByLabel('Email').fill(admin.email);
    await page.getByLabel('Password').fill(admin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: projectName }).click();
    await page.getByRole('link', { name: 'Team' }).click();
    const invitee = uniqueEmail('teammate');
    await page.getByRole('button', { name: 'Invite someone' }).first().click();
    // The form checks its request with the API's own schema: the API's message, and nothing sent.
    const invitesSent: string[] = [];
    page.on('request', (r) => void (r.method() === 'POST' && r.url().endsWith('/projects/invite') && invitesSent.push(r.url())));
    await page.getByLabel('Email').fill('grace at example');
    await page.getByRole('button', { name: 'Send invitation' }).click();
    const answered = await p.h.post('/projects/invite', { token: (await p.h.signin(admin.email, admin.password)).accessToken, body: { email: 'grace at example', projectId } });
    expect(answered.status).toBe(400);
    await page.getByText(answered.body.details[0].message, { exact: true }).waitFor();
    expect(await page.getByLabel('Email').getAttribute('aria-invalid')).toBe('true');
    await check(page, '15-invite-invalid');
    expect(invitesSent).toEqual([]);
    await page.getByLabel('Email').fill(invitee);
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByRole('row', { name: new RegExp(invitee) }).getByText('pending').waitFor();
    const other = uniqueEmail('changed-mind');
    await page.getByRole('button', { name: 'Invite someone' }).first().click();
    await page.getByLabel('Email').fill(other);
    await page.getByLabel('Role').selectOption('project_admin');
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByRole('button', { name: `Resend invitation to ${other}` }).click();
    await page.getByText(`A new invitation was sent to ${other}.`).waitFor();
    await page.getByRole('button', { name: `Cancel invitation to ${other}` }).click();
    await page.getByRole('button', { name: 'Cancel invitation' }).click();
    await page.getByRole('row', { name: new RegExp(other) }).getByText('cancelled').waitFor();
    await check(page, '16-team');
    await context.close();

    const mail = await p.h.smtp.waitFor(invitee, /invit/i);
    const invitePage = await newPage(browser);
    const guest = invitePage.page;
    await guest.goto(link(mail.text, '/accept-invite'));
    await guest.getByRole('heading', { name: 'You are invited to a Herald project' }).waitFor();
    await guest.getByLabel('First name').fill('Linus');
    await guest.getByLabel('Last name').fill('Member');
    await guest.getByLabel('Choose a password').fill(PASSWORD);
    await check(guest, '17-accept-invite');
    await guest.getByRole('button', { name: 'Create account and join' }).click();
    await guest.waitForURL(`${p.h.url}/p/${projectId}`);
    await guest.getByText('Sent, 24 h').waitFor();

    // A team_member: admin actions hidden or disabled, with a plain note.
    await guest.getByRole('link', { name: 'Team' }).click();
    await guest.getByText('Only project admins can invite or remove people.').waitFor();
    expect(await guest.getByRole('button', { name: 'Invite someone' }).count()).toBe(0);
    expect(await guest.getByRole('button', { name: /^Remove/ }).count()).toBe(0);
    await check(guest, '18-team-as-member');
    await guest.getByRole('link', { name: 'Push providers' }).click();
    await guest.getByText('Only project admins can change push settings and providers.').waitFor();
    expect(await guest.getByRole('button', { name: 'Add FCM provider' }).count()).toBe(0);
    expect(await guest.getByRole('button', { name: /^Test/ }).count()).toBe(0);
    expect(await guest.getByRole('switch').first().isDisabled()).toBe(true);
    await check(guest, '19-providers-as-member');
    await guest.getByRole('link', { name: 'API keys' }).click();
    await guest.getByText('Only project admins can see and manage API keys.').waitFor();
    expect(await guest.getByRole('button', { name: 'Create API key' }).count()).toBe(0);
    await guest.getByRole('link', { name: 'All projects' }).click();
    await guest.getByRole('link', { name: projectName }).waitFor();
    expect(await guest.getByRole('button', { name: /^Delete/ }).count()).toBe(0);
    expect(await guest.getByRole('button', { name: 'New project' }).count()).toBe(0);
    await check(guest, '20-projects-as-member');

    // A team member may still work with templates.
    await guest.goto(`${p.h.url}/p/${projectId}/templates`);
    await guest.getByRole('link', { name: 'order-shipped' }).waitFor();
    await invitePage.context.close();
  });

  it('resets a forgotten password through the e-mailed link', async () => {
    const user = await p.h.signup();
    const { context, page } = await newPage(browser);
    await page.goto(`${p.h.url}/signin`);
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByLabel('Email').fill(user.email);
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await page.getByText('a reset link is on its way').waitFor();
    await check(page, '21-forgot-password');

    const mail = await p.h.smtp.waitFor(user.email, /reset/i);
    await page.goto(link(mail.text, '/reset-password'));
    await page.getByLabel('New password', { exact: true }).fill('a brand new password');
    await page.getByLabel('Repeat the new password').fill('a brand new password');
    await check(page, '22-reset-password');
    await page.getByRole('button', { name: 'Set new password' }).click();
    await page.getByText('Your password has been changed').waitFor();
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill('a brand new password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Projects', exact: true }).waitFor();

    // Changing the password keeps this browser signed in (the API revokes the old refresh token, so
    // the dashboard signs in again with the new password): a due refresh still succeeds.
    await page.getByRole('link', { name: 'Account' }).click();
    await page.getByLabel('Current password').fill('a brand new password');
    await page.getByLabel('New password', { exact: true }).fill('the third password');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Your password has been changed.').waitFor();
    await check(page, '23-account');
    await page.evaluate(`(() => {
      const s = JSON.parse(localStorage.getItem('herald.session'));
      localStorage.setItem('herald.session', JSON.stringify({ ...s, expiresAt: Date.now() - 1000 }));
    })()`);
    await page.goto(`${p.h.url}/`);
    await page.getByRole('heading', { name: 'Projects', exact: true }).waitFor();
    expect(page.url()).toBe(`${p.h.url}/`);

    // The link works once.
    await page.goto(link(mail.text, '/reset-password'));
    await page.getByLabel('New password', { exact: true }).fill('yet another password');
    await page.getByLabel('Repeat the new password').fill('yet another password');
    await page.getByRole('button', { name: 'Set new password' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toMatch(/token/i);
    await context.close();
  });

  it('a session whose refresh is refused returns to sign-in and, after it, to the page the user was on', async () => {
    const user = await p.h.signup();
    const tokens = await p.h.signin(user.email);
    const created = await p.h.post('/projects', { token: tokens.accessToken, body: { name: unique('Session project') } });
    expect(created.status).toBe(201);
    const { context, page } = await newPage(browser);
    await page.goto(`${p.h.url}/signin`);
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: created.body.name }).waitFor();
    // The access token is due for a refresh and the refresh token is no longer valid.
    await page.evaluate(`(() => {
      const s = JSON.parse(localStorage.getItem('herald.session'));
      localStorage.setItem('herald.session', JSON.stringify({ ...s, expiresAt: Date.now() - 1000, refreshToken: 'revoked' }));
    })()`);
    const target = `/p/${created.body.id}/templates?page=1`;
    await page.goto(`${p.h.url}${target}`);
    await page.waitForURL(`${p.h.url}/signin?expired=1&next=${encodeURIComponent(target)}`);
    await page.getByText('Your session has ended').waitFor();
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${p.h.url}${target}`);
    await page.getByRole('heading', { name: 'No templates yet' }).waitFor();
    await context.close();
  });

  it("a notification's engagement funnel after its events were posted, its CSV export and its template's trend", async () => {
    const t = await p.project();
    const userId = unique('reader');
    const tokens = [unique('tok'), unique('tok')];
    await p.registerDevices(t.apiKey.key, tokens.map((deviceToken) => ({ userId, deviceToken, platform: 'android' })));
    const sent = await p.h.post('/push/send', { apiKey: t.apiKey.key, body: { userId, templateId: t.templateId, variables: { name: 'Ada', count: 1 } } });
    expect(sent.status).toBe(202);
    const notificationId = sent.body.notificationId as string;
    await p.waitForNotification(t.apiKey.key, notificationId);
    // The app reported through its backend: both received, one opened and clicked.
    const [a, b] = (await p.h.db.delivery.findMany({ where: { notificationId }, orderBy: { id: 'asc' } })).map((d) => d.id);
    const events = [
      { deliveryId: a, type: 'received' },
      { deliveryId: b, type: 'received' },
      { deliveryId: a, type: 'opened' },
      { deliveryId: a, type: 'clicked', action: '=cmd' },
    ];
    expect((await httpRequest(p.h.url, 'POST', '/push/events', { apiKey: t.apiKey.key, body: { events } })).body.refused).toEqual([]);

    const { page, context } = await newPage(browser);
    await page.goto(`${p.h.url}/signin`);
    await page.getByLabel('Email').fill(t.owner.email);
    await page.getByLabel('Password').fill(t.owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: t.project.name }).waitFor();
    await page.goto(`${p.h.url}/p/${t.project.id}/notifications/${notificationId}`);
    const funnel = page.getByTestId('engagement-funnel');
    await funnel.getByLabel('received: 2, 100 % of delivered').waitFor();
    await funnel.getByLabel('opened: 1, 50 % of delivered').waitFor();
    await funnel.getByLabel('clicked: 1, 50 % of delivered').waitFor();
    await funnel.getByLabel('dismissed: 0, 0 % of delivered').waitFor();
    await check(page, '20-notification-engagement');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    expect(download.suggestedFilename()).toBe(`notification-${notificationId}.csv`);
    const lines = (await streamText(await download.createReadStream())).trim().split('\r\n');
    expect(lines[0]).toBe('deliveryId,userId,deviceId,platform,status,error,received,opened,clicked,dismissed,action');
    expect(lines).toHaveLength(3);
    const rowOf = (id: string) => lines.find((l) => l.startsWith(id))!.split(',');
    expect(rowOf(a)).toEqual([a, userId, expect.any(String), 'android', 'sent', '', expect.any(String), expect.any(String), expect.any(String), '', "'=cmd"]);
    expect(rowOf(b).slice(6)).toEqual([expect.any(String), '', '', '', '']);

    await page.goto(`${p.h.url}/p/${t.project.id}/templates`);
    await page.getByRole('link', { name: 'Trend', exact: true }).first().click();
    await page.getByRole('img', { name: /Sent, delivered, opened and clicked per day, last 30 days: 2 sent, 2 delivered, 1 opened, 1 clicked/ }).waitFor();
    await check(page, '21-template-engagement');
    await context.close();
  });

  it('serves the dashboard for page URLs but leaves the API alone: JSON clients still get JSON', async () => {
    const page = await httpRequest(p.h.url, 'GET', '/accept-invite?token=x', { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.text).toContain('<div id="root">');
    // Scripts from this origin only, and no upgrade to an HTTPS a plain-HTTP instance may not have.
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('content-security-policy')).not.toContain('upgrade-insecure-requests');
    const api = await httpRequest(p.h.url, 'GET', '/nowhere', { headers: { accept: 'application/json' } });
    expect(api.status).toBe(404);
    expect(api.body).toEqual({ statusCode: 404, message: 'Cannot GET /nowhere', error: 'Not Found' });
    const projects = await httpRequest(p.h.url, 'GET', '/projects', { headers: { accept: 'text/html' } });
    expect(projects.status).toBe(401);
  });
});
