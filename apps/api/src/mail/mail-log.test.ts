import { randomBytes } from 'node:crypto';
import { createProject, startApi, uniqueEmail, waitUntil, type Harness } from '@herald/testing';

/**
 * Without SMTP_URL mails are written to the log, in production too. A reset link read from such a log
 * once took over the account: no production log line carries a link's token, not the logged mail,
 * not the request line of someone following such a link to the API (MAIL_TRANSPORT=log, the same
 * transport chosen explicitly, is the same config: packages/config's tests). Outside production the
 * log is the mailbox: there a mail is written whole, so its link can be followed.
 */
let h: Harness;

beforeAll(async () => {
  h = await startApi({
    NODE_ENV: 'production',
    SMTP_URL: '',
    CREDENTIALS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  });
});
afterAll(() => h.close());

/** A token: what follows `token=` in a link, unless it was redacted. */
const UNREDACTED = /token=(?!\[redacted\])[^\s"&]+/;

it('in production without SMTP_URL, reset and invite mails are logged without their tokens, and no log line carries one', async () => {
  const owner = await h.user();
  expect((await h.post('/auth/request-password-reset', { body: { email: owner.email } })).status).toBe(200);
  const project = await createProject(h, owner);
  expect((await h.post('/projects/invite', { token: owner.accessToken, body: { email: uniqueEmail('invitee'), projectId: project.id } })).status).toBe(201);
  // Someone follows a link to the API's own address (APP_URL's default), query and all.
  expect((await h.get('/reset-password', { query: { token: 'leaked-reset-token-value' } })).status).toBe(404);
  expect((await h.get('/accept-invite', { query: { a: '1', token: 'leaked-invite-token-value' } })).status).toBe(404);

  // The mails were written (in the background): the reset and the invite, each with its link's place.
  await waitUntil(() => h.logLines.filter((l) => l.includes('"mail"')).length >= 2, 2000, 'two mails in the log', 20);
  const mails = h.logLines.filter((l) => l.includes('"mail"')).map((l) => JSON.parse(l).mail);
  expect(mails.map((m) => m.subject).sort()).toEqual(['Reset your Herald password', 'You have been invited to a Herald project']);
  for (const mail of mails) expect(mail.text).toMatch(/\/(reset-password|accept-invite)\?token=\[redacted\]/);

  const lines = h.logLines.join('\n');
  expect(lines).toContain('/reset-password?token=[redacted]');
  expect(lines).toContain('/accept-invite?a=1&token=[redacted]');
  expect(lines).not.toContain('leaked-reset-token-value');
  expect(lines).not.toContain('leaked-invite-token-value');
  for (const line of h.logLines) expect(line).not.toMatch(UNREDACTED);
  // Nothing was sent by SMTP: the log is the transport.
  expect(h.smtp.mails).toHaveLength(0);
});

describe('outside production without SMTP_URL', () => {
  let dev: Harness;
  beforeAll(async () => {
    dev = await startApi({ NODE_ENV: 'development', SMTP_URL: '' });
  });
  afterAll(() => dev.close());

  it('writes an invite mail whole to the log, and its link accepts the invite', async () => {
    const owner = await dev.user();
    const project = await createProject(dev, owner);
    const email = uniqueEmail('logged-invite');
    expect((await dev.post('/projects/invite', { token: owner.accessToken, body: { email, projectId: project.id } })).status).toBe(201);

    const line = await waitUntil(() => dev.logLines.find((l) => l.includes('"mail"') && l.includes(email)), 2000, 'the invite mail in the log', 20);
    const text: string = JSON.parse(line).mail.text;
    const token = /\/accept-invite\?token=([^\s&]+)/.exec(text)?.[1];
    expect(token).toBeDefined();
    expect(token).not.toBe('[redacted]');
    const accepted = await dev.post('/projects/accept-invite', { body: { token, firstName: 'Lo', lastName: 'Gged', password: 'a-long-password' } });
    expect(accepted.status).toBe(201);
    expect(accepted.body.projectId).toBe(project.id);
    expect(dev.smtp.mails).toHaveLength(0);
  });
});
