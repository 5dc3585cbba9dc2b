import type { ApiContainer } from '../../container';
import { defineRoute, type RouteDefinition } from '../../http/define-route';
import { overviewResponse, projectParams } from './overview.schema';
import { OverviewService } from './overview.service';

/** The dashboard's project overview: any member may read it; anyone else gets 404 for the project. */
export function overviewRoutes(c: ApiContainer): RouteDefinition[] {
  const overview = new OverviewService(c.db);
  return [
    defineRoute(
      {
        method: 'get',
        path: '/projects/:projectId/overview',
        summary: 'Notifications sent and failed over the last 24 hours and 7 days, and devices by platform',
        tags: ['Projects'],
        auth: 'jwt',
        params: projectParams,
        project: { from: 'params' },
        response: overviewResponse,
      },
      ({ project }) => overview.get(project.id),
    ),
  ];
}
