import { z } from 'zod';
import { AUDIT_ACTOR_TYPES, auditLogFilters, auditLogQuery, auditProjectParams, auditTimeRangeCheck } from '@herald/schemas';
import { paginationQuery } from '../../http/pagination';

export { auditProjectParams as projectParams };

/** The filters, and where a page starts: the `nextCursor` of the page before. */
export const listQuery = auditLogFilters
  .extend({
    cursor: z.string({ error: 'cursor must be a string' }).regex(/^[1-9]\d{0,17}$/, 'cursor must be the nextCursor of a previous page').optional(),
    limit: paginationQuery.limit,
  })
  .refine(...auditTimeRangeCheck);

export const exportQuery = auditLogQuery;

export const auditEntryResponse = z.object({
  id: z.uuid(),
  /** The entry's place in the project's chain, from 1. */
  number: z.number().int(),
  actor: z.object({
    type: z.enum(AUDIT_ACTOR_TYPES),
    id: z.string().nullable(),
    /** A user's e-mail. */
    email: z.string().optional(),
    /** An API key's name. */
    name: z.string().optional(),
  }),
  action: z.string(),
  target: z.object({ type: z.string(), id: z.string().nullable() }),
  changes: z.record(z.string(), z.unknown()),
  ip: z.string().nullable(),
  userAgent: z.string().nullable(),
  createdAt: z.iso.datetime(),
  hash: z.string(),
});

export const auditPageResponse = z.object({ data: z.array(auditEntryResponse), nextCursor: z.string().nullable() });

export const verifyResponse = z.object({
  /** Whether every entry's hash matches its fields and the previous entry's hash, with no entry missing. */
  valid: z.boolean(),
  entries: z.number().int(),
  /** The first entry where the chain breaks (absent when valid). */
  brokenAt: z
    .object({
      id: z.uuid(),
      number: z.number().int(),
      reason: z.enum(['altered', 'entries missing before it']),
    })
    .optional(),
});

/** JSON Lines: one `AuditEntry` object a line. */
export const exportResponse = z.string().describe('One audit entry (the shape of `data` items of the list) as JSON per line');
