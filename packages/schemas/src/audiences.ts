import { z } from 'zod';
import { deliverAt } from './settings';
import { audienceFilter } from './audience-filter';
import { deviceAttributesPatch, setsAttributes } from './device-attributes';
import { customerUserId } from './devices';
import { uuid } from './ids';

/**
 * Request bodies of device attributes for users, segments and audiences (docs/audiences.md). The
 * dashboard builds segments and counts with them.
 */
export const MAX_USERS_PER_CALL = 1000;
const NOTHING_TO_SET = 'Provide tags, timezone, locale or appVersion';

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

const segmentName = z.string({ error: 'name must be a string' }).trim().min(1, 'name is required').max(100, 'name is at most 100 characters');
const segmentDescription = z.string({ error: 'description must be a string' }).trim().max(500, 'description is at most 500 characters').nullable();

export const createSegmentBody = z.object({ name: segmentName, description: segmentDescription.optional(), filter: audienceFilter });

/** Every field optional, at least one: a typo must not answer 200 and change nothing. */
export const updateSegmentBody = z
  .object({ name: segmentName.optional(), description: segmentDescription.optional(), filter: audienceFilter.optional() })
  .refine((b) => b.name !== undefined || b.description !== undefined || b.filter !== undefined, { error: 'Provide name, description or filter' });

/**
 * Who an audience is: a saved segment, a filter, or every device of the project — exactly one.
 * The count takes it, and so will a broadcast.
 */
export const audience = z
  .object({
    segmentId: uuid('segmentId').optional(),
    filter: audienceFilter.optional(),
    all: z.literal(true, { error: 'all must be true (or leave it out)' }).optional(),
  })
  .superRefine((a, ctx) => {
    const given = (['segmentId', 'filter', 'all'] as const).filter((k) => a[k] !== undefined);
    if (given.length !== 1) {
      ctx.addIssue({ code: 'custom', message: given.length ? `Give only one of ${given.join(', ')}` : 'Provide exactly one of segmentId, filter or all', path: given.length > 1 ? [given[1]] : [], input: a });
    }
  });
export type Audience = z.infer<typeof audience>;

/**
 * A count's body: the audience, and optionally the `deliverAt` of a local-time send to preview (how
 * many devices fall in each delivery hour, how many use the project's default zone).
 */
export const audienceCountBody = audience.and(
  z.object({
    deliverAt: deliverAt.optional(),
    ignoreQuietHours: z.boolean({ error: 'ignoreQuietHours must be a boolean' }).optional().describe("Preview without the project's quiet hours"),
  }),
);
