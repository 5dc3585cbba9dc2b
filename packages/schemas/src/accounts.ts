import { z } from 'zod';
import { uuid } from './ids';

export const emailSchema = z
  .string({ error: 'email must be a string' })
  .trim()
  .toLowerCase()
  .max(254, 'email is too long')
  .pipe(z.email({ error: 'email must be a valid e-mail address' }));

/** At least 8 characters (docs/api.md#access-tokens); the upper bound only keeps hashing cheap (see `bcryptInput`). */
export const passwordSchema = z
  .string({ error: 'password must be a string' })
  .min(8, 'Password must be at least 8 characters')
  .max(1024, 'Password must be at most 1024 characters');

export const nameSchema = (field: string) => z.string({ error: `${field} must be a string` }).trim().min(1, `${field} is required`).max(100, `${field} is too long`);

export const tokenSchema = (field: string) => z.string({ error: `${field} must be a string` }).min(1, `${field} is required`).max(512, `${field} is too long`);

export const signupBody = z.object({
  email: emailSchema,
  password: passwordSchema,
  firstName: nameSchema('firstName'),
  lastName: nameSchema('lastName'),
});

export const signinBody = z.object({
  email: emailSchema,
  password: z.string({ error: 'password must be a string' }).min(1, 'password is required').max(1024),
});

export const refreshBody = z.object({ refreshToken: tokenSchema('refreshToken') });

export const requestResetBody = z.object({ email: emailSchema });

export const resetPasswordBody = z.object({ token: tokenSchema('token'), newPassword: passwordSchema });

export const changePasswordBody = z.object({
  currentPassword: z.string({ error: 'currentPassword must be a string' }).min(1, 'currentPassword is required').max(1024),
  newPassword: passwordSchema,
});

export const roleSchema = z.enum(['team_member', 'project_admin'], { error: 'role must be team_member or project_admin' });

export const createInviteBody = z.object({
  email: emailSchema,
  projectId: uuid('projectId'),
  role: roleSchema.default('team_member'),
});

/**
 * Names and the password rules of signup apply only when the invite creates an account; for an
 * existing account the password is checked against it and the names are ignored, whatever they hold
 * (docs/api.md#projects-team-and-invites). So they are checked by the service, once it knows which
 * case it is, with `newAccountFields`.
 */
const acceptedName = (field: string) =>
  z.unknown().optional().meta({ type: 'string', description: `${field}: required for a new account (1–100 characters); ignored for an existing one` });

export const acceptInviteBody = z.object({
  token: tokenSchema('token'),
  firstName: acceptedName('firstName'),
  lastName: acceptedName('lastName'),
  password: z.string({ error: 'password must be a string' }).min(1, 'password is required').max(1024, 'password is too long'),
});

/** What accepting an invite needs besides the token when it creates the account. */
export const newAccountFields = z.object({ firstName: nameSchema('firstName'), lastName: nameSchema('lastName'), password: passwordSchema });
