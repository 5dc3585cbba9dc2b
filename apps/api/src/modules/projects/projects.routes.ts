import { AppError } from '@herald/core';
import type { ApiContainer } from '../../container';
import { defineRoute, type RouteDefinition } from '../../http/define-route';
import { ProjectsService } from './projects.service';
import { createProjectBody, memberParams, messageResponse, projectListResponse, projectParams, projectResponse, teamResponse } from './projects.schema';

/** A member removal by someone without the right is a 401 with this message (docs/api.md#roles-and-permissions). */
export const REMOVE_MEMBER_DENIAL = { status: 401, message: 'unauthorized (no permission to remove members)' };

export function projectRoutes(c: ApiContainer): RouteDefinition[] {
  const projects = new ProjectsService(c.db, c.config.projectsPerAccount);
  const tags = ['Projects'];

  return [
    defineRoute(
      { method: 'post', path: '/projects', summary: 'Create a project (account role project_admin)', tags, auth: 'jwt', body: createProjectBody, status: 201, response: projectResponse },
      ({ caller, body, audit }) => {
        if (caller.role !== 'project_admin') throw AppError.forbidden('Only project admins may create projects');
        return projects.create(caller.userId, body.name, audit);
      },
    ),
    defineRoute(
      { method: 'get', path: '/projects', summary: 'The projects the caller belongs to', tags, auth: 'jwt', response: projectListResponse },
      ({ caller }) => projects.listFor(caller.userId),
    ),
    defineRoute(
      {
        method: 'get',
        path: '/projects/:projectId',
        summary: 'One project (a member, or an API key of the project)',
        tags,
        auth: 'keyOrJwt',
        scope: 'any',
        params: projectParams,
        project: { from: 'params' },
        response: projectResponse,
      },
      ({ project }) => projects.get(project.id),
    ),
    defineRoute(
      {
        method: 'delete',
        path: '/projects/:projectId',
        summary: 'Delete a project and everything in it (owner only; irreversible)',
        tags,
        auth: 'jwt',
        params: projectParams,
        project: { from: 'params', need: 'owner' },
        response: messageResponse,
      },
      ({ project, audit }) => projects.remove(project, audit),
    ),
    defineRoute(
      { method: 'get', path: '/projects/:projectId/team', summary: 'The members of a project', tags, auth: 'jwt', params: projectParams, project: { from: 'params' }, response: teamResponse },
      ({ project }) => projects.team(project),
    ),
    defineRoute(
      {
        method: 'delete',
        path: '/projects/:projectId/members/:userId',
        summary: 'Remove a member (project_admin; the owner cannot be removed)',
        tags,
        auth: 'jwt',
        params: memberParams,
        project: { from: 'params', need: 'project_admin', denial: REMOVE_MEMBER_DENIAL },
        response: messageResponse,
      },
      ({ project, params, audit }) => projects.removeMember(project, params.userId, audit),
    ),
  ];
}
