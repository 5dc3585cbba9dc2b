import { tokenFromMail, type Harness } from '@herald/testing';

/** Asks for a password reset for `email` and returns the token from the mail's link. */
export async function requestReset(h: Harness, email: string) {
  const res = await h.post('/auth/request-password-reset', { body: { email } });
  expect(res.status).toBe(200);
  const mail = await h.smtp.waitFor(email, /reset/i);
  expect(mail.html).toContain('http://herald.test/reset-password?token=');
  return tokenFromMail(mail, 'http://herald.test/reset-password');
}
