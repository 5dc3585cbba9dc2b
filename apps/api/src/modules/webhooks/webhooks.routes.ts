import type { ApiContainer } from '../../container';
import { defineRoute, reply, type RouteDefinition } from '../../http/define-route';
import { pageResponse } from '../../http/pagination';
import {
  createWebhookBody,
  deliveriesQuery,
  deliveryResponse,
  messageResponse,
  projectParams,
  testEventResponse,
  updateWebhookBody,
  webhookParams,
  webhookResponse,
  webhookWithSecretResponse,
} from './webhooks.schema';
import { WebhooksService } from './webhooks.service';

/**
 * Outcome webhooks (docs/webhooks.md): endpoints per project, managed by its project_admin members
 * (a team_member gets 403, anyone else 404). Nothing here calls a receiver: the worker delivers.
 */
export function webhookRoutes(c: ApiContainer): RouteDefinition[] {
  const webhooks = new WebhooksService(c.db, c.config.encryption, c.config.webhookAddresses, c.webhookEvents, c.config.webhookEndpointsPerProject);
  const tags = ['Webhooks'];
  const admin = { from: 'params', need: 'project_admin' } as const;
  // Endpoints are not part of what the project cache holds.
  const common = { tags, auth: 'jwt', project: admin, keepsProjectCache: true } as const;

  return [
    defineRoute(
      { ...common, method: 'post', path: '/projects/:projectId/webhooks', summary: 'Create a webhook endpoint (its signing secret is shown only here)', params: projectParams, body: createWebhookBody, status: 201, response: webhookWithSecretResponse },
      ({ project, body, audit }) => webhooks.create(project.id, body, audit),
    ),
    defineRoute(
      { ...common, method: 'get', path: '/projects/:projectId/webhooks', summary: "The project's webhook endpoints, without their secrets", params: projectParams, response: webhookResponse.array() },
      ({ project }) => webhooks.list(project.id),
    ),
    defineRoute(
      { ...common, method: 'get', path: '/projects/:projectId/webhooks/:webhookId', summary: 'One webhook endpoint', params: webhookParams, response: webhookResponse },
      ({ project, params }) => webhooks.get(project.id, params.webhookId),
    ),
    defineRoute(
      {
        ...common,
        method: 'put',
        path: '/projects/:projectId/webhooks/:webhookId',
        summary: 'Change the URL, events, description, or enable/disable (enabling resets the failure count)',
        params: webhookParams,
        body: updateWebhookBody,
        response: webhookResponse,
      },
      ({ project, params, body, audit }) => webhooks.update(project.id, params.webhookId, body, audit),
    ),
    defineRoute(
      { ...common, method: 'delete', path: '/projects/:projectId/webhooks/:webhookId', summary: 'Delete a webhook endpoint; nothing more is sent to it', params: webhookParams, response: messageResponse },
      ({ project, params, audit }) => webhooks.remove(project.id, params.webhookId, audit),
    ),
    defineRoute(
      {
        ...common,
        method: 'post',
        path: '/projects/:projectId/webhooks/:webhookId/rotate-secret',
        summary: 'A new signing secret (shown only here); the previous one also signs for 24 hours',
        params: webhookParams,
        response: webhookWithSecretResponse,
      },
      ({ project, params, audit }) => webhooks.rotateSecret(project.id, params.webhookId, audit),
    ),
    defineRoute(
      {
        ...common,
        method: 'post',
        path: '/projects/:projectId/webhooks/:webhookId/test',
        summary: 'Queue a `webhook.test` event for this endpoint; follow it in its deliveries',
        params: webhookParams,
        status: 202,
        response: testEventResponse,
        limits: ['webhook-test'],
      },
      async ({ project, params, limit }) => {
        await limit('webhook-test', project.id);
        return reply(202, await webhooks.sendTest(project.id, params.webhookId));
      },
    ),
    defineRoute(
      {
        ...common,
        method: 'get',
        path: '/projects/:projectId/webhooks/:webhookId/deliveries',
        summary: "The endpoint's deliveries, newest first, with every attempt (status, response code, duration, next retry)",
        params: webhookParams,
        query: deliveriesQuery,
        response: pageResponse(deliveryResponse),
      },
      ({ project, params, query }) => webhooks.deliveries(project.id, params.webhookId, query),
    ),
  ];
}
