import { z } from 'zod';
import { audienceFilter } from '@herald/core';
import { uuid } from '../../http/uuid';

export { projectQuery } from '../devices/devices.schema';

export const projectParams = z.object({ projectId: uuid('projectId') });
export const segmentParams = z.object({ projectId: uuid('projectId'), segmentId: uuid('segmentId') });

const name = z.string({ error: 'name must be a string' }).trim().min(1, 'name is required').max(100, 'name is at most 100 characters');
const description = z.string({ error: 'description must be a string' }).trim().max(500, 'description is at most 500 characters').nullable();

export const createSegmentBody = z.object({ name, description: description.optional(), filter: audienceFilter });

/** Every field optional, at least one: a typo must not answer 200 and change nothing. */
export const updateSegmentBody = z
  .object({ name: name.optional(), description: description.optional(), filter: audienceFilter.optional() })
  .refine((b) => b.name !== undefined || b.description !== undefined || b.filter !== undefined, { error: 'Provide name, description or filter' });

export const segmentResponse = z.object({
  id: z.uuid(),
  projectId: z.uuid(),
  name: z.string(),
  description: z.string().nullable(),
  filter: audienceFilter,
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});

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

export const audienceCountResponse = z.object({
  devices: z.number().int().describe('Matching devices'),
  users: z.number().int().describe('Distinct users of the matching devices'),
  byPlatform: z.object({ android: z.number().int(), ios: z.number().int(), web: z.number().int() }).describe('Matching devices per platform'),
});

export const messageResponse = z.object({ message: z.string() });
