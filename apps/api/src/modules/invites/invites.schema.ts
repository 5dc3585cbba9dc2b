import { z } from 'zod';
import { roleSchema, uuid } from '@herald/schemas';
import { userResponse } from '../auth/auth.schema';

// The request bodies, which the dashboard validates with too, are defined in @herald/schemas.
export { acceptInviteBody, createInviteBody, newAccountFields } from '@herald/schemas';

export const inviteParams = z.object({ inviteId: uuid('inviteId') });

export const projectParams = z.object({ projectId: uuid('projectId') });

export const inviteResponse = z.object({
  id: z.uuid(),
  email: z.email(),
  projectId: z.uuid(),
  role: roleSchema,
  status: z.enum(['pending', 'accepted', 'cancelled', 'expired']),
  createdAt: z.iso.datetime(),
  expiresAt: z.iso.datetime(),
});

export const acceptInviteResponse = z.object({
  user: userResponse,
  projectId: z.uuid(),
  role: roleSchema,
  accessToken: z.string(),
  refreshToken: z.string(),
  expiresIn: z.number().int(),
});
