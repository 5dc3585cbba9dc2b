import { z } from 'zod';
import type { ApiContainer } from '../../container';
import { defineRoute, reply, type RouteDefinition } from '../../http/define-route';
import { customerUserId, deviceResponse, messageResponse, projectQuery, registerDeviceBody, unregisterDeviceBody } from './devices.schema';
import { DeviceService } from './devices.service';

export function deviceRoutes(c: ApiContainer): RouteDefinition[] {
  const devices = new DeviceService(c.db);
  const tags = ['Devices'];

  return [
    defineRoute(
      {
        method: 'post',
        path: '/push/register-device',
        summary: 'Register (or refresh) a device token of one of your users; idempotent',
        keepsProjectCache: true,
        tags,
        auth: 'keyOrJwt',
        scope: 'devices:write',
        query: projectQuery,
        body: registerDeviceBody,
        project: { from: 'query' },
        rateLimit: { name: 'register-device', per: 'credential' },
        status: 201,
        response: deviceResponse,
      },
      async ({ project, body }) => {
        const { inserted, device } = await devices.register(project.id, body);
        return reply(inserted ? 201 : 200, device);
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/push/unregister-device',
        summary: 'Forget a device token (e.g. when the user signs out of the app)',
        keepsProjectCache: true,
        tags,
        auth: 'keyOrJwt',
        scope: 'devices:write',
        query: projectQuery,
        body: unregisterDeviceBody,
        project: { from: 'query' },
        response: messageResponse,
      },
      async ({ project, body }) => {
        const removed = await devices.unregister(project.id, body.provider, body.deviceToken);
        return { message: removed ? 'Device unregistered' : 'Device was not registered' };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/push/devices/:userId',
        summary: "List a user's registered devices",
        tags,
        auth: 'jwt',
        params: z.object({ userId: customerUserId }),
        query: projectQuery,
        project: { from: 'query' },
        response: z.array(deviceResponse),
      },
      ({ project, params }) => devices.listForUser(project.id, params.userId),
    ),
  ];
}
