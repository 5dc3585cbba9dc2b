import { createProject } from '../../../../test/fixtures';
import { startApi, uniqueEmail, type Harness } from '../../../../test/harness';

/**
 * Hardening: with mails written to the log (MAIL_TRANSPORT=log, or no SMTP_URL outside production),
 * a reset link read from the log took over the account. No log line carries a link's token: not the
 * logged mail, not the request line of someone following such a link to the API.
 */
let h: Harness;

beforeAll(async () => {
  h = await startApi({ SMTP_URL: '', MAIL_TRANSPORT: 'log' });
});
afterAll(() => h.close());

/** A token: what follows `token=` in a link, unless it was redacted. */
const UNREDACTED = /token=(?!\[redacted\])[^\s"&]+/;

it('reset and invite mails are logged without their tokens, and no log line carries one', async () => {
  const owner = await h.user();
  expect((await h.post('/auth/request-password-reset', { body: { email: owner.email } })).status).toBe(200);
  const project = await createProject(h, owner);
  expect((await h.post('/projects/invite', { token: owner.accessToken, body: { email: uniqueEmail('invitee'), projectId: project.id } })).status).toBe(201);
  // Someone follows a link to the API's own address (APP_URL's default), query and all.
  expect((await h.get('/reset-password', { query: { token: 'leaked-reset-token-value' } })).status).toBe(404);
  expect((await h.get('/accept-invite', { query: { a: '1', token: 'leaked-invite-token-value' } })).status).toBe(404);

  // The mails were written (in the background): the reset and the invite, each with its link's place.
  const waitFor = async () => {
    for (let i = 0; i < 100 && h.logLines.filter((l) => l.includes('"mail"')).length < 2; i++) await new Promise((r) => setTimeout(r, 20));
  };
  await waitFor();
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
