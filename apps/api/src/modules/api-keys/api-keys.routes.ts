import type { ApiContainer } from '../../container';
import { defineRoute, type RouteDefinition } from '../../http/define-route';
import { ApiKeysService } from './api-keys.service';
import { apiKeyResponse, createdKeyResponse, createKeyBody, keyParams, messageResponse, projectParams, updateKeyBody } from './api-keys.schema';

/** Every key operation, listing included, is for project_admin members (docs/api.md#api-keys). */
export function apiKeyRoutes(c: ApiContainer): RouteDefinition[] {
  const keys = new ApiKeysService(c.db, c.config.apiKeysPerProject);
  const tags = ['API keys'];
  const admin = { from: 'params', need: 'project_admin' } as const;

  return [
    defineRoute(
      {
        method: 'post',
        path: '/projects/:projectId/api-keys',
        summary: 'Create an API key (the key is shown only here)',
        tags,
        auth: 'jwt',
        params: projectParams,
        body: createKeyBody,
        project: admin,
        status: 201,
        response: createdKeyResponse,
      },
      ({ project, body, audit }) => keys.create(project.id, body, audit),
    ),
    defineRoute(
      {
        method: 'get',
        path: '/projects/:projectId/api-keys',
        summary: "The project's API keys, without their secrets",
        tags,
        auth: 'jwt',
        params: projectParams,
        project: admin,
        response: apiKeyResponse.array(),
      },
      ({ project }) => keys.list(project.id),
    ),
    defineRoute(
      {
        method: 'patch',
        path: '/projects/:projectId/api-keys/:keyId',
        summary: 'Rename, disable or enable an API key, or change its scopes or expiry',
        tags,
        auth: 'jwt',
        params: keyParams,
        body: updateKeyBody,
        project: admin,
        response: apiKeyResponse,
      },
      ({ project, params, body, audit }) => keys.update(project.id, params.keyId, body, audit),
    ),
    defineRoute(
      {
        method: 'delete',
        path: '/projects/:projectId/api-keys/:keyId',
        summary: 'Delete an API key',
        tags,
        auth: 'jwt',
        params: keyParams,
        project: admin,
        response: messageResponse,
      },
      ({ project, params, audit }) => keys.remove(project.id, params.keyId, audit),
    ),
  ];
}
