import { z } from 'zod';
import { mergePushOptions } from '@herald/core';
import type { AuditSource } from '@herald/db';
import type { RolloutBody } from '@herald/schemas';
import type { ApiContainer } from '../../container';
import { defineRoute, reply, type RouteDefinition } from '../../http/define-route';
import { uuid } from '@herald/schemas';
import { pageResponse } from '../../http/pagination';
import { AudiencesService } from '../audiences/audiences.service';
import { acceptedBroadcastResponse, broadcastBody, acceptedBulkResponse, acceptedResponse, getQuery, listQuery, notificationResponse, notificationSummary, projectQuery, sendBody, sendBulkBody, sendHeaders } from './notifications.schema';
import { NotificationService, type SendInput } from './notifications.service';

type SendBody = z.infer<typeof sendBody>;
type BulkBody = z.infer<typeof sendBulkBody>;
type BroadcastBody = z.infer<typeof broadcastBody>;

/** The service's input from a send's body: the options gathered, the recipients named one way. */
function sendInput(body: SendBody | BulkBody | BroadcastBody, recipients: SendInput['recipients'], bulk: boolean, personalised = false): SendInput {
  const { priority, ttl, collapseKey, android, apns, webpush, analyticsLabel } = body;
  return {
    recipients,
    templateId: body.templateId,
    variables: body.variables,
    imageUrl: body.imageUrl,
    data: body.data,
    options: mergePushOptions({ priority, ttl, collapseKey, android, apns, webpush, analyticsLabel }),
    dataOnly: body.dataOnly,
    dryRun: body.dryRun,
    sendAt: body.sendAt,
    deliverAt: body.deliverAt,
    ignoreQuietHours: body.ignoreQuietHours,
    bulk,
    personalised,
  };
}

/** A change of a notification's state by the sender (`send` scope): `POST /push/notifications/{id}/<action>`, answered with its summary. */
function stateChange(action: string, summary: string, change: (projectId: string, id: string, audit: AuditSource) => Promise<z.infer<typeof notificationSummary>>) {
  return defineRoute(
    {
      method: 'post',
      path: `/push/notifications/:notificationId/${action}`,
      summary,
      tags: ['Sending'],
      auth: 'keyOrJwt',
      scope: 'send',
      params: z.object({ notificationId: uuid('notificationId') }),
      query: projectQuery,
      project: { from: 'query' },
      response: notificationSummary,
    },
    ({ project, params, audit }) => change(project.id, params.notificationId, audit),
  );
}

/** How every send is admitted: into the project named in the query, at most once per `Idempotency-Key`, as a 202. */
const admission = {
  query: projectQuery,
  project: { from: 'query', state: true },
  headers: sendHeaders,
  // Counted once the caller's access to the project is checked (a stranger uses up nothing).
  limits: ['project-send'],
  status: 202,
} as const;

/** A staged rollout as the notification starts with it: at its first stage, nothing weighed yet. */
const rolloutOf = (rollout: RolloutBody | undefined) => (rollout ? { ...rollout, currentStage: 0, stageFigures: [], haltedAt: null, haltReason: null } : undefined);

export function notificationRoutes(c: ApiContainer): RouteDefinition[] {
  const notifications = new NotificationService(c.db, c.queue, c.webhookEvents, c.config.scheduledPerProject);
  const audiences = new AudiencesService(c.db);
  const tags = ['Sending'];

  return [
    defineRoute(
      {
        method: 'post',
        path: '/push/send',
        summary: "Send a templated push to one user's devices",
        keepsProjectCache: true,
        tags,
        auth: 'keyOrJwt',
        scope: 'send',
        body: sendBody,
        ...admission,
        rateLimit: { name: 'send', per: 'credential' },
        response: acceptedResponse,
      },
      async ({ project, projectState, body, headers, limit }) => {
        await limit('project-send', project.id);
        return reply(202, await notifications.send(projectState, sendInput(body, [{ userId: body.userId }], false), headers['Idempotency-Key']));
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/push/send-bulk',
        summary: 'Send a templated push to up to 500 users',
        keepsProjectCache: true,
        tags,
        auth: 'keyOrJwt',
        scope: 'send',
        body: sendBulkBody,
        ...admission,
        rateLimit: { name: 'send-bulk', per: 'credential' },
        response: acceptedBulkResponse,
      },
      async ({ project, projectState, body, headers, limit }) => {
        await limit('project-send', project.id);
        const input = body.recipients ? sendInput(body, body.recipients, true, true) : sendInput(body, body.userIds!.map((userId) => ({ userId })), true);
        return reply(202, await notifications.send(projectState, input, headers['Idempotency-Key']));
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/push/broadcast',
        summary: 'Send a templated push to every device of an audience: a segment, a filter, or all',
        keepsProjectCache: true,
        tags,
        auth: 'keyOrJwt',
        scope: 'send',
        body: broadcastBody,
        ...admission,
        rateLimit: { name: 'send-bulk', per: 'credential' },
        response: acceptedBroadcastResponse,
      },
      async ({ project, projectState, body, headers, limit }) => {
        await limit('project-send', project.id);
        const audience = await audiences.resolve(project.id, body.audience);
        const accepted = await notifications.send(projectState, sendInput(body, [], false), headers['Idempotency-Key'], { audience: audience.recorded, ratePerMinute: body.ratePerMinute, rollout: rolloutOf(body.rollout) });
        if (!body.dryRun) return reply(202, accepted);
        // A dry run answers what the audience holds now, as the count does, and when a timed one would reach it.
        const timing = await notifications.timingOf(project.id, accepted.notificationId);
        return reply(202, { ...accepted, ...(await audiences.dryRunOf(project.id, audience, timing)) });
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/push/notifications',
        summary: 'List notifications, newest first',
        tags,
        auth: 'keyOrJwt',
        scope: 'notifications:read',
        query: listQuery,
        project: { from: 'query' },
        response: pageResponse(notificationSummary),
      },
      ({ project, query }) => notifications.list(project.id, query),
    ),
    defineRoute(
      {
        method: 'get',
        path: '/push/notifications/:notificationId',
        summary: "Status, statistics and per-device deliveries of a notification (a broadcast's: its progress, and its deliveries a page at a time)",
        tags,
        auth: 'keyOrJwt',
        scope: 'notifications:read',
        params: z.object({ notificationId: uuid('notificationId') }),
        query: getQuery,
        project: { from: 'query' },
        response: notificationResponse,
      },
      ({ project, params, query }) => notifications.get(project.id, params.notificationId, query),
    ),
    stateChange(
      'cancel',
      'Cancel a scheduled notification before it starts, a local-time one before its last device is due, or a broadcast until it ends (a halted one too)',
      (projectId, id, audit) => notifications.cancel(projectId, id, audit),
    ),
    stateChange('resume', 'Go on with a halted staged rollout: its next stage starts (409 unless it is halted)', (projectId, id, audit) => notifications.resume(projectId, id, audit)),
  ];
}
