import { z } from 'zod';
import { DEVICE_PLATFORMS, DEVICE_PROVIDERS, tagValue, uuid } from '@herald/schemas';

// The request bodies, which the dashboard validates with too, are defined in @herald/schemas.
export { customerUserId, registerDeviceBody, unregisterDeviceBody } from '@herald/schemas';

export const projectQuery = z.object({ projectId: uuid('projectId').optional() });

export const deviceResponse = z.object({
  id: z.uuid(),
  userId: z.string(),
  deviceToken: z.string(),
  provider: z.enum(DEVICE_PROVIDERS),
  platform: z.enum(DEVICE_PLATFORMS),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
  lastSeenAt: z.iso.datetime(),
  tags: z.record(z.string(), tagValue),
  timezone: z.string().nullable(),
  locale: z.string().nullable(),
  appVersion: z.string().nullable(),
});

export const messageResponse = z.object({ message: z.string() });
