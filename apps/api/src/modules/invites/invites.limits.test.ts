import { addMember, createProject, expectError, startApi, uniqueEmail, type ApiResponse, type Harness, type Session } from '@herald/testing';

/**
 * Hardening: invites as a mail cannon. A new account invited a victim and resent the invite 40 times,
 * 41 mails under the operator's SMTP identity with a phishing link in the project's name. Invite
 * mails are now limited per project, per inviter and per invited address (hourly), and the project's
 * name cannot pass for a link.
 */
const prefix = (name: string) => `${process.env.QUEUE_PREFIX}-${name}`;

function expect429(res: ApiResponse) {
  expectError(res, 429, 'Too many requests, please try again later');
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(res.headers.get('ratelimit-policy')).toBeTruthy();
}

describe('with the default limits (20 mails an hour to one address)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startApi({ QUEUE_PREFIX: prefix('invite-defaults'), RATE_LIMIT_INVITES_PER_PROJECT: '100', RATE_LIMIT_INVITES_PER_INVITER: '100', RATE_LIMIT_INVITES_PER_ADDRESS: '20' });
  });
  afterAll(() => h.close());

  it('an invite resent 40 times reaches the victim 20 times; the rest, the 41st included, are 429', async () => {
    const attacker = await h.user();
    const project = await createProject(h, attacker);
    const victim = uniqueEmail('victim');
    const first = await h.post('/projects/invite', { token: attacker.accessToken, body: { email: victim, projectId: project.id } });
    expect(first.status).toBe(201);
    const statuses: number[] = [first.status];
    let last: ApiResponse | undefined;
    for (let i = 0; i < 40; i++) {
      last = await h.post(`/projects/resend-invite/${first.body.id}`, { token: attacker.accessToken });
      statuses.push(last.status);
    }
    expect(statuses.filter((s) => s !== 429)).toHaveLength(20);
    expect(statuses.slice(0, 20).every((s) => s === 201 || s === 200)).toBe(true);
    expect(statuses.slice(20).every((s) => s === 429)).toBe(true);
    expect429(last!); // the 41st
    await h.smtp.nthMail(victim, 20);
    await new Promise((r) => setTimeout(r, 200));
    expect(h.smtp.mailsTo(victim)).toHaveLength(20);
  });
});

describe('per project and per inviter', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startApi({ QUEUE_PREFIX: prefix('invite-small'), RATE_LIMIT_INVITES_PER_PROJECT: '3', RATE_LIMIT_INVITES_PER_INVITER: '4', RATE_LIMIT_INVITES_PER_ADDRESS: '20' });
  });
  afterAll(() => h.close());

  const invite = (who: Session, projectId: string, email = uniqueEmail('invitee')) => h.post('/projects/invite', { token: who.accessToken, body: { email, projectId } });

  it('a project gets its allowance whoever invites; strangers cannot use it up; an inviter is limited across projects', async () => {
    const owner = await h.user();
    const coAdmin = await h.user();
    const stranger = await h.user();
    const project = await createProject(h, owner);
    await addMember(h, project.id, coAdmin, 'project_admin');
    // Refused before they count: a stranger's invites naming the project are 404s.
    for (let i = 0; i < 5; i++) expect((await invite(stranger, project.id)).status).toBe(404);

    expect((await invite(owner, project.id)).status).toBe(201);
    expect((await invite(coAdmin, project.id)).status).toBe(201);
    expect((await invite(owner, project.id)).status).toBe(201);
    expect429(await invite(coAdmin, project.id)); // the project's 4th
    expect429(await invite(owner, project.id));

    // The owner has sent 2: the per-inviter limit of 4 leaves two for another project of theirs,
    // although that project has three.
    const second = await createProject(h, owner);
    expect((await invite(owner, second.id)).status).toBe(201);
    expect((await invite(owner, second.id)).status).toBe(201);
    expect429(await invite(owner, second.id));
    // The co-admin (1 sent) is counted apart: a project of their own gets its full three.
    const coProject = await createProject(h, coAdmin);
    for (let i = 0; i < 3; i++) expect((await invite(coAdmin, coProject.id)).status).toBe(201);
  });

  it('the project name cannot carry a link: quoted, on one line, URLs and domains defanged', async () => {
    const owner = await h.user();
    const name = 'Security check https://evil.example/login\n\nAccept: www.evil.example';
    const project = await createProject(h, owner, name);
    const email = uniqueEmail('phished');
    expect((await invite(owner, project.id, email)).status).toBe(201);
    const mail = await h.smtp.waitFor(email);
    expect(mail.text).toContain('the project "Security check https[:]//evil[.]example/login Accept: www[.]evil[.]example" on Herald');
    expect(mail.text + mail.html).not.toMatch(/evil\.example/);
    // The one link in the mail is Herald's.
    expect(mail.html.match(/<a /g)).toHaveLength(1);
    expect(mail.text.match(/https?:\/\//g)).toEqual(['http://']);
  });
});
