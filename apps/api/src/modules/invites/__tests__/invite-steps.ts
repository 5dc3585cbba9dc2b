import type { Harness, Session } from '../../../../../../test/harness';
import { createProject } from '../../../../../../test/fixtures';
import { tokenFromMail, type CapturedMail } from '../../../../../../test/smtp';

/** The invite tests' shared steps, over one harness: mails read from its SMTP server. */

export const ACCEPT_URL = 'http://herald.test/accept-invite';

export function inviteSteps(harness: () => Harness) {
  /** The `n`-th mail (from 1) to `email`, waiting up to 5 s for it. */
  async function nthMail(email: string, n: number): Promise<CapturedMail> {
    const deadline = Date.now() + 5000;
    for (;;) {
      const mails = harness().smtp.mails.filter((m) => m.to.includes(email.toLowerCase()));
      if (mails.length >= n) return mails[n - 1];
      if (Date.now() > deadline) throw new Error(`mail #${n} to ${email} did not arrive`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async function adminWithProject() {
    const h = harness();
    const admin = await h.user();
    const project = await createProject(h, admin);
    return { admin, project };
  }

  /** Invites `email` as `admin` and returns the invite and the token from its mail. */
  async function invite(admin: Session, projectId: string, email: string, role?: 'team_member' | 'project_admin') {
    const res = await harness().post('/projects/invite', { token: admin.accessToken, body: { email, projectId, ...(role ? { role } : {}) } });
    if (res.status !== 201) throw new Error(`invite failed: ${res.status} ${res.text}`);
    const mail = await nthMail(email, 1);
    return { invite: res.body, token: tokenFromMail(mail, ACCEPT_URL), mail };
  }

  const accept = (body: Record<string, unknown>) => harness().post('/projects/accept-invite', { body });

  return { nthMail, adminWithProject, invite, accept };
}
