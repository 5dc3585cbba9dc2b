import { AppError } from '@herald/core';
import type { ApiContainer } from '../../container';
import type { ProjectAccess, ProjectNeed } from '../../http/access';
import { defineRoute, type RouteDefinition } from '../../http/define-route';
import { INVITE_NOT_FOUND, InvitesService } from './invites.service';
import { acceptInviteBody, acceptInviteResponse, createInviteBody, inviteParams, inviteResponse, projectParams } from './invites.schema';

type Access = (projectId: string, need?: ProjectNeed) => Promise<ProjectAccess>;

/**
 * Static paths (`/projects/invite`, `/projects/resend-invite/:id`, …) — mounted before the project
 * routes so that no `/projects/:projectId` pattern can take them.
 */
export function inviteRoutes(c: ApiContainer): RouteDefinition[] {
  const invites = new InvitesService(c.db, c.mailer, c.auth, { appUrl: c.config.appUrl }, c.logger);
  const tags = ['Invites'];

  /** The invite's project, for a project_admin of it; to anyone outside the project the invite does not exist. */
  async function adminOfInvite(access: Access, inviteId: string): Promise<ProjectAccess> {
    const projectId = await invites.projectOf(inviteId);
    try {
      return await access(projectId, 'project_admin');
    } catch (err) {
      if (err instanceof AppError && err.status === 404) throw AppError.notFound(INVITE_NOT_FOUND);
      throw err;
    }
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
      ({ project, caller, body }) => invites.create(project, caller.email, body.email, body.role),
    ),
    defineRoute(
      {
        method: 'post',
        path: '/projects/accept-invite',
        summary: 'Accept an invite (creates the account if needed)',
        tags,
        auth: 'none',
        body: acceptInviteBody,
        status: 201,
        response: acceptInviteResponse,
      },
      ({ body }) => invites.accept(body),
    ),
    defineRoute(
      { method: 'post', path: '/projects/resend-invite/:inviteId', summary: 'Resend a pending invite with a new token', tags, auth: 'jwt', params: inviteParams, response: inviteResponse },
      async ({ params, caller, access }) => invites.resend(await adminOfInvite(access, params.inviteId), params.inviteId, caller.email),
    ),
    defineRoute(
      { method: 'delete', path: '/projects/cancel-invite/:inviteId', summary: 'Cancel a pending invite', tags, auth: 'jwt', params: inviteParams, response: inviteResponse },
      async ({ params, access }) => invites.cancel(await adminOfInvite(access, params.inviteId), params.inviteId),
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
