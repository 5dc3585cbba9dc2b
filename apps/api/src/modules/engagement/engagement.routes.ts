import type { ApiContainer } from '../../container';
import { defineRoute, type RouteDefinition } from '../../http/define-route';
import { TEMPLATE_NOT_FOUND } from '../templates/templates.service';
import { deliveryEventsResponse, eventsBody, eventsResponse, labelSeriesParams, notificationParams, projectQuery, seriesResponse, templateSeriesParams } from './engagement.schema';
import { EngagementService } from './engagement.service';

export function engagementRoutes(c: ApiContainer): RouteDefinition[] {
  const engagement = new EngagementService(c.db, c.webhookEvents);
  const tags = ['Engagement'];
  // An API key looks in its own project only: another project's template is unknown to it (404), never a 403.
  const templateProject = (id: string, projectId?: string) => c.db.pushTemplate.findFirst({ where: { id, projectId }, select: { projectId: true } }).then((t) => t?.projectId);

  return [
    defineRoute(
      {
        method: 'post',
        path: '/push/events',
        summary: 'Report what happened to delivered messages (received, opened, clicked, dismissed); each event accepted or refused alone',
        keepsProjectCache: true,
        tags,
        auth: 'keyOrJwt',
        query: projectQuery,
        body: eventsBody,
        project: { from: 'query' },
        scope: 'events:write',
        rateLimit: { name: 'events', per: 'credential' },
        response: eventsResponse,
      },
      ({ project, body }) => engagement.ingest(project.id, body.events),
    ),
    defineRoute(
      {
        method: 'get',
        path: '/push/notifications/:notificationId/events',
        summary: "A notification's deliveries with the events reported for each (the dashboard's CSV export)",
        tags,
        auth: 'keyOrJwt',
        scope: 'notifications:read',
        params: notificationParams,
        query: projectQuery,
        project: { from: 'query' },
        response: deliveryEventsResponse,
      },
      ({ project, params }) => engagement.deliveryEvents(project.id, params.notificationId),
    ),
    defineRoute(
      {
        method: 'get',
        path: '/push-templates/:id/engagement',
        summary: "A template's daily sends, deliveries, opens and clicks over the last 30 days",
        tags,
        auth: 'keyOrJwt',
        scope: 'templates:read',
        params: templateSeriesParams,
        response: seriesResponse,
      },
      async ({ params, caller, accessResource }) => {
        const project = await accessResource(templateProject(params.id, caller.type === 'apiKey' ? caller.projectId : undefined), TEMPLATE_NOT_FOUND);
        return engagement.series(project.id, 'template', params.id);
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/push/analytics-labels/:label/engagement',
        summary: "An analytics label's daily sends, deliveries, opens and clicks over the last 30 days",
        tags,
        auth: 'keyOrJwt',
        scope: 'notifications:read',
        params: labelSeriesParams,
        query: projectQuery,
        project: { from: 'query' },
        response: seriesResponse,
      },
      ({ project, params }) => engagement.series(project.id, 'label', params.label),
    ),
  ];
}
