import type { ApiContainer } from '../../container';
import { defineRoute, type RouteDefinition } from '../../http/define-route';
import { attributesBody, bulkAttributesBody, bulkAttributesResponse, projectQuery, userAttributesResponse, userParams } from './attributes.schema';
import { AttributesService } from './attributes.service';

/**
 * Attributes of a user's devices, set by the customer's backend: the way it syncs its users'
 * properties (plan, country, …) into what audience filters select by (docs/audiences.md).
 */
export function attributeRoutes(c: ApiContainer): RouteDefinition[] {
  const attributes = new AttributesService(c.db);
  const tags = ['Devices'];
  const common = { tags, auth: 'keyOrJwt', scope: 'devices:write', query: projectQuery, project: { from: 'query' }, keepsProjectCache: true } as const;

  return [
    defineRoute(
      {
        ...common,
        method: 'post',
        path: '/push/users/attributes',
        summary: 'Set attributes on the devices of up to 1,000 users in one call (all or nothing)',
        body: bulkAttributesBody,
        rateLimit: { name: 'user-attributes-bulk', per: 'credential' },
        response: bulkAttributesResponse,
      },
      ({ project, body }) => attributes.setForUsers(project.id, body.users),
    ),
    defineRoute(
      {
        ...common,
        method: 'patch',
        path: '/push/users/:userId/attributes',
        summary: "Set tags, time zone, locale or app version on all of a user's devices",
        params: userParams,
        body: attributesBody,
        rateLimit: { name: 'user-attributes', per: 'credential' },
        response: userAttributesResponse,
      },
      ({ project, params, body }) => attributes.setForUser(project.id, params.userId, body),
    ),
  ];
}
