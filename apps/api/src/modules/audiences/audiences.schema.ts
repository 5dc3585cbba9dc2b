import { z } from 'zod';
import { audienceFilter, uuid } from '@herald/schemas';

// The request bodies, which the dashboard validates with too, are defined in @herald/schemas.
export { audience, audienceCountBody, createSegmentBody, updateSegmentBody, type Audience } from '@herald/schemas';
export { projectQuery } from '../devices/devices.schema';

export const projectParams = z.object({ projectId: uuid('projectId') });
export const segmentParams = z.object({ projectId: uuid('projectId'), segmentId: uuid('segmentId') });

export const segmentResponse = z.object({
  id: z.uuid(),
  projectId: z.uuid(),
  name: z.string(),
  description: z.string().nullable(),
  filter: audienceFilter,
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});

export const audienceCountResponse = z.object({
  devices: z.number().int().describe('Matching devices'),
  users: z.number().int().describe('Distinct users of the matching devices'),
  byPlatform: z.object({ android: z.number().int(), ios: z.number().int(), web: z.number().int() }).describe('Matching devices per platform'),
  deliveryHours: z
    .object({
      defaultZoneDevices: z.number().int().describe("Devices without a timezone: their moment is computed in the project's defaultTimezone"),
      hours: z.array(z.object({ hour: z.iso.datetime().describe('The start of the hour (UTC)'), devices: z.number().int() })),
    })
    .optional()
    .describe('With `deliverAt`: how many devices a local-time send accepted now would reach in each hour'),
});

export const messageResponse = z.object({ message: z.string() });
