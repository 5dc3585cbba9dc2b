import { z } from 'zod';
import { customerUserId } from '@herald/schemas';
import { deviceResponse } from '../devices/devices.schema';

// The request bodies, which the dashboard validates with too, are defined in @herald/schemas.
export { attributesBody, bulkAttributesBody } from '@herald/schemas';
export { projectQuery } from '../devices/devices.schema';

export const userParams = z.object({ userId: customerUserId });

export const userAttributesResponse = z.object({
  userId: z.string(),
  updated: z.number().int().describe('How many of the user’s devices the attributes were applied to (0: the user has no devices)'),
  devices: z.array(deviceResponse),
});

export const bulkAttributesResponse = z.object({
  updated: z.number().int().describe('Devices updated, over all users'),
  users: z.array(z.object({ userId: z.string(), updated: z.number().int() })).describe('Per user, in the order of the request'),
});
