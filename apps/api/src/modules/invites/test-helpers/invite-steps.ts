import { createProject, tokenFromMail, type Harness, type Session } from '@herald/testing';

/** The invite tests' shared steps, over one harness: mails read from its SMTP server. */

export const ACCEPT_URL = 'http://herald.test/accept-invite';

export function inviteSteps(harness: () => Harness) {
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
    const mail = await harness().smtp.nthMail(email, 1);
    return { invite: res.body, token: tokenFromMail(mail, ACCEPT_URL), mail };
  }

  const accept = (body: Record<string, unknown>) => harness().post('/projects/accept-invite', { body });

  return { adminWithProject, invite, accept };
}
