import { z } from 'zod';

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

export const userResponse = z.object({
  id: z.uuid(),
  email: z.email(),
  firstName: z.string(),
  lastName: z.string(),
  role: z.enum(['team_member', 'project_admin']),
  createdAt: z.iso.datetime(),
});

export const tokenResponse = z.object({
  accessToken: z.string(),
  refreshToken: z.string(),
  expiresIn: z.number().int(),
  tokenType: z.literal('Bearer'),
});

export const messageResponse = z.object({ message: z.string() });
