import { z } from 'zod';
import { uuid } from '@herald/schemas';

export const projectParams = z.object({ projectId: uuid('projectId') });

const bucket = z.object({
  /** Start of the hour or UTC day. */
  start: z.iso.datetime(),
  /** Notifications created in the bucket. */
  notifications: z.number().int(),
  /** Devices sent to, and devices that failed, for those notifications. */
  sent: z.number().int(),
  failed: z.number().int(),
});

const totals = bucket.omit({ start: true });

export const overviewResponse = z.object({
  generatedAt: z.iso.datetime(),
  last24h: totals.extend({ hours: bucket.array() }),
  last7d: totals.extend({ days: bucket.array() }),
  devices: z.object({
    total: z.number().int(),
    byPlatform: z.object({ platform: z.string(), count: z.number().int() }).array(),
  }),
});
export type Overview = z.infer<typeof overviewResponse>;
