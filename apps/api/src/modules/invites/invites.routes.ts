import type { ApiContainer } from '../../container';
import { defineRoute, type AccessResource, type CountLimit, type RouteDefinition } from '../../http/define-route';
import { accountSubject } from '../../http/limits';
import { createAuthService } from '../auth/auth.service';
import { INVITE_NOT_FOUND, InvitesService } from './invites.service';
import { acceptInviteBody, acceptInviteResponse, createInviteBody, inviteParams, inviteResponse, projectParams } from './invites.schema';

const INVITE_MAIL_LIMITS = ['invite-project', 'invite-inviter', 'invite-address'] as const;
type InviteMailLimit = (typeof INVITE_MAIL_LIMITS)[number];

/**
 * Static paths (`/projects/invite`, `/projects/resend-invite/:id`, …) — mounted before the project
 * routes so that no `/projects/:projectId` pattern can take them.
 */
export function inviteRoutes(c: ApiContainer): RouteDefinition[] {
  const invites = new InvitesService(c.db, c.mailer, createAuthService(c), { appUrl: c.config.appUrl }, c.logger);
  const tags = ['Invites'];

  /**
   * Every invite mail (a new invite or a resend) counts per project, per inviting user and per
   * invited address. Counted after the access check, so a stranger cannot use up a project's allowance.
   */
  async function countInviteMail(limit: CountLimit<InviteMailLimit>, mail: { projectId: string; inviterId: string; email: string }) {
    await limit('invite-project', mail.projectId);
    await limit('invite-inviter', mail.inviterId);
    await limit('invite-address', mail.email);
  }

  /** The invite's project, for a project_admin of it; to anyone outside the project the invite does not exist. */
  async function adminOfInvite(accessResource: AccessResource, inviteId: string) {
    const invite = invites.find(inviteId);
    const project = await accessResource(invite.then((found) => found?.projectId), INVITE_NOT_FOUND, 'project_admin');
    return { project, email: (await invite)!.email };
  }

  return [
    defineRoute(
      {
        method: 'post',
        path: '/projects/invite',
        summary: 'Invite someone to a project by e-mail (project_admin)',
        tags,
        auth: 'jwt',
        body: createInviteBody,
        project: { from: 'body', need: 'project_admin' },
        limits: INVITE_MAIL_LIMITS,
        status: 201,
        response: inviteResponse,
      },
      async ({ project, caller, body, limit, audit }) => {
        await countInviteMail(limit, { projectId: project.id, inviterId: caller.userId, email: body.email });
        return invites.create(project, caller.email, body.email, body.role, audit);
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/projects/accept-invite',
        summary: 'Accept an invite (creates the account if needed)',
        tags,
        auth: 'none',
        body: acceptInviteBody,
        limits: ['password-check'],
        status: 201,
        response: acceptInviteResponse,
      },
      async ({ body, clientIp, limit, audit }) => {
        // Accepting into an existing account checks its password: counted with that account's other
        // password checks. The account is the invite's address.
        const email = await invites.emailOfToken(body.token);
        await limit('password-check', email ? accountSubject(email) : `ip:${clientIp}`);
        return invites.accept(body, audit);
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/projects/resend-invite/:inviteId',
        summary: 'Resend a pending invite with a new token',
        tags,
        auth: 'jwt',
        params: inviteParams,
        limits: INVITE_MAIL_LIMITS,
        response: inviteResponse,
      },
      async ({ params, caller, accessResource, limit, audit }) => {
        const { project, email } = await adminOfInvite(accessResource, params.inviteId);
        await countInviteMail(limit, { projectId: project.id, inviterId: caller.userId, email });
        return invites.resend(project, params.inviteId, caller.email, audit);
      },
    ),
    defineRoute(
      { method: 'delete', path: '/projects/cancel-invite/:inviteId', summary: 'Cancel a pending invite', tags, auth: 'jwt', params: inviteParams, response: inviteResponse },
      async ({ params, accessResource, audit }) => invites.cancel((await adminOfInvite(accessResource, params.inviteId)).project, params.inviteId, audit),
    ),
    defineRoute(
      {
        method: 'get',
        path: '/projects/:projectId/invites',
        summary: 'All invites of a project, with their status',
        tags,
        auth: 'jwt',
        params: projectParams,
        project: { from: 'params' },
        response: inviteResponse.array(),
      },
      ({ project }) => invites.list(project),
    ),
  ];
}
