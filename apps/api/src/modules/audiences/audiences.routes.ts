import type { ApiContainer } from '../../container';
import { defineRoute, type RouteDefinition } from '../../http/define-route';
import {
  audience,
  audienceCountResponse,
  createSegmentBody,
  messageResponse,
  projectParams,
  projectQuery,
  segmentParams,
  segmentResponse,
  updateSegmentBody,
} from './audiences.schema';
import { AudiencesService } from './audiences.service';

/**
 * Audiences (docs/audiences.md): segments, a project's saved filters (members read them, project
 * admins write them), and the count of an audience. Neither changes what the project cache holds.
 */
export function audienceRoutes(c: ApiContainer): RouteDefinition[] {
  const audiences = new AudiencesService(c.db);
  const tags = ['Audiences'];
  const read = { tags, auth: 'jwt', project: { from: 'params' }, keepsProjectCache: true } as const;
  const write = { ...read, project: { from: 'params', need: 'project_admin' } } as const;
  const path = '/projects/:projectId/segments';
  const one = `${path}/:segmentId`;

  const update = (method: 'put' | 'patch') =>
    defineRoute(
      { ...write, method, path: one, summary: `Change a segment's name, description or filter${method === 'patch' ? ' (the same as PUT)' : ''}`, params: segmentParams, body: updateSegmentBody, response: segmentResponse },
      ({ project, params, body, audit }) => audiences.update(project.id, params.segmentId, body, audit),
    );

  return [
    defineRoute(
      {
        tags,
        method: 'post',
        path: '/push/audience/count',
        summary: 'How many devices and users an audience (a segment, a filter, or all) holds now, per platform',
        auth: 'keyOrJwt',
        scope: 'devices:read',
        query: projectQuery,
        body: audience,
        project: { from: 'query' },
        keepsProjectCache: true,
        rateLimit: { name: 'audience-count', per: 'credential' },
        response: audienceCountResponse,
      },
      ({ project, body }) => audiences.count(project.id, body),
    ),
    defineRoute(
      { ...write, method: 'post', path, summary: 'Save a filter as a named segment', params: projectParams, body: createSegmentBody, status: 201, response: segmentResponse },
      ({ project, body, audit }) => audiences.create(project.id, body, audit),
    ),
    defineRoute({ ...read, method: 'get', path, summary: "The project's segments, oldest first", params: projectParams, response: segmentResponse.array() }, ({ project }) => audiences.list(project.id)),
    defineRoute({ ...read, method: 'get', path: one, summary: 'One segment', params: segmentParams, response: segmentResponse }, ({ project, params }) => audiences.get(project.id, params.segmentId)),
    update('put'),
    update('patch'),
    defineRoute(
      { ...write, method: 'delete', path: one, summary: 'Delete a segment', params: segmentParams, response: messageResponse },
      ({ project, params, audit }) => audiences.remove(project.id, params.segmentId, audit),
    ),
  ];
}
