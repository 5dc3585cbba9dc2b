import { z } from 'zod';
import { uuid } from '../../http/uuid';
import { emailSchema, tokenSchema, userResponse } from '../auth/auth.schema';

const roleEnum = z.enum(['team_member', 'project_admin'], { error: 'role must be team_member or project_admin' });

export const createInviteBody = z.object({
  email: emailSchema,
  projectId: uuid('projectId'),
  role: roleEnum.default('team_member'),
});

export const inviteParams = z.object({ inviteId: uuid('inviteId') });

export const projectParams = z.object({ projectId: uuid('projectId') });

/**
 * Names and the password rules of signup apply only when the invite creates an account; for an
 * existing account the password is checked against it and the names are ignored, whatever they hold
 * (docs/api.md#projects-team-and-invites). So they are checked by the service, once it knows which case it is.
 */
const acceptedName = (field: string) =>
  z.unknown().optional().meta({ type: 'string', description: `${field}: required for a new account (1–100 characters); ignored for an existing one` });

export const acceptInviteBody = z.object({
  token: tokenSchema('token'),
  firstName: acceptedName('firstName'),
  lastName: acceptedName('lastName'),
  password: z.string({ error: 'password must be a string' }).min(1, 'password is required').max(1024, 'password is too long'),
});

export const inviteResponse = z.object({
  id: z.uuid(),
  email: z.email(),
  projectId: z.uuid(),
  role: roleEnum,
  status: z.enum(['pending', 'accepted', 'cancelled', 'expired']),
  createdAt: z.iso.datetime(),
  expiresAt: z.iso.datetime(),
});

export const acceptInviteResponse = z.object({
  user: userResponse,
  projectId: z.uuid(),
  role: roleEnum,
  accessToken: z.string(),
  refreshToken: z.string(),
  expiresIn: z.number().int(),
});
