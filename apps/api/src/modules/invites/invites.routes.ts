import type { Request, Response } from 'express';
import type { ApiContainer } from '../../container';
import { defineRoute, type AccessResource, type RouteDefinition } from '../../http/define-route';
import { clientIp, subjectLimit } from '../../http/rate-limit';
import { PASSWORD_CHECK_LIMITER, passwordCheckKey } from '../auth/auth.routes';
import { createAuthService } from '../auth/auth.service';
import { INVITE_NOT_FOUND, InvitesService } from './invites.service';
import { acceptInviteBody, acceptInviteResponse, createInviteBody, inviteParams, inviteResponse, projectParams } from './invites.schema';

/**
 * Static paths (`/projects/invite`, `/projects/resend-invite/:id`, …) — mounted before the project
 * routes so that no `/projects/:projectId` pattern can take them.
 */
export function inviteRoutes(c: ApiContainer): RouteDefinition[] {
  const invites = new InvitesService(c.db, c.mailer, createAuthService(c), { appUrl: c.config.appUrl }, c.logger);
  const tags = ['Invites'];

  // Every invite mail (a new invite or a resend) counts per project, per inviting user and per
  // invited address, in hourly windows, so that no account can turn invites into a mail cannon.
  // Counted after the access check, so a stranger cannot use up a project's allowance.
  const hour = 3600_000;
  const { perProject, perInviter, perAddress } = c.config.rateLimits.invites;
  const inviteMailLimits = [
    subjectLimit(c.limiter, { name: 'invite-project', limit: perProject, windowMs: hour }),
    subjectLimit(c.limiter, { name: 'invite-inviter', limit: perInviter, windowMs: hour }),
    subjectLimit(c.limiter, { name: 'invite-address', limit: perAddress, windowMs: hour }),
  ] as const;
  // Accepting into an existing account checks its password: counted with that account's other
  // password checks. The account is the invite's address (the body is not validated yet here).
  const passwordCheckLimit = c.limiter({
    name: PASSWORD_CHECK_LIMITER,
    limit: c.config.rateLimits.passwordCheck,
    key: async (req) => {
      const token: unknown = req.body?.token;
      const email = typeof token === 'string' && token.length <= 512 ? await invites.emailOfToken(token) : undefined;
      return email ? passwordCheckKey(email) : `ip:${clientIp(req)}`;
    },
  });

  async function countInviteMail(req: Request, res: Response, mail: { projectId: string; inviterId: string; email: string }) {
    const [project, inviter, address] = inviteMailLimits;
    await project(req, res, mail.projectId);
    await inviter(req, res, mail.inviterId);
    await address(req, res, mail.email);
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
        status: 201,
        response: inviteResponse,
      },
      async ({ project, caller, body, req, res }) => {
        await countInviteMail(req, res, { projectId: project.id, inviterId: caller.userId, email: body.email });
        return invites.create(project, caller.email, body.email, body.role);
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
        rateLimit: passwordCheckLimit,
        status: 201,
        response: acceptInviteResponse,
      },
      ({ body }) => invites.accept(body),
    ),
    defineRoute(
      { method: 'post', path: '/projects/resend-invite/:inviteId', summary: 'Resend a pending invite with a new token', tags, auth: 'jwt', params: inviteParams, response: inviteResponse },
      async ({ params, caller, accessResource, req, res }) => {
        const { project, email } = await adminOfInvite(accessResource, params.inviteId);
        await countInviteMail(req, res, { projectId: project.id, inviterId: caller.userId, email });
        return invites.resend(project, params.inviteId, caller.email);
      },
    ),
    defineRoute(
      { method: 'delete', path: '/projects/cancel-invite/:inviteId', summary: 'Cancel a pending invite', tags, auth: 'jwt', params: inviteParams, response: inviteResponse },
      async ({ params, accessResource }) => invites.cancel((await adminOfInvite(accessResource, params.inviteId)).project, params.inviteId),
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
