import { z } from 'zod';
import { deviceAttributesPatch, setsAttributes } from '@herald/core';
import { customerUserId, deviceResponse } from '../devices/devices.schema';

export { projectQuery } from '../devices/devices.schema';

export const MAX_USERS_PER_CALL = 1000;
const NOTHING_TO_SET = 'Provide tags, timezone, locale or appVersion';

export const userParams = z.object({ userId: customerUserId });

/** Every attribute optional, at least one: a typo must not answer 200 and change nothing. */
export const attributesBody = z.object(deviceAttributesPatch).refine(setsAttributes, { error: NOTHING_TO_SET });

const userAttributes = z.object({ userId: customerUserId, ...deviceAttributesPatch }).refine(setsAttributes, { error: NOTHING_TO_SET });

export const bulkAttributesBody = z.object({
  users: z
    .array(userAttributes, { error: 'users must be an array of { userId, tags?, timezone?, locale?, appVersion? }' })
    .min(1, 'users must hold at least one user')
    .max(MAX_USERS_PER_CALL, `users holds at most ${MAX_USERS_PER_CALL} users`)
    .superRefine((users, ctx) => {
      const first = new Map<string, number>();
      users.forEach((u, i) => {
        const seen = first.get(u.userId);
        if (seen === undefined) first.set(u.userId, i);
        else ctx.addIssue({ code: 'custom', message: `the same user as users.${seen}: each user once per call`, path: [i, 'userId'], input: u.userId });
      });
    }),
});

export const userAttributesResponse = z.object({
  userId: z.string(),
  updated: z.number().int().describe('How many of the user’s devices the attributes were applied to (0: the user has no devices)'),
  devices: z.array(deviceResponse),
});

export const bulkAttributesResponse = z.object({
  updated: z.number().int().describe('Devices updated, over all users'),
  users: z.array(z.object({ userId: z.string(), updated: z.number().int() })).describe('Per user, in the order of the request'),
});
