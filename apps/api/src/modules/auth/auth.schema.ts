import { z } from 'zod';

// The request bodies, which the dashboard validates with too, are defined in @herald/schemas.
export { changePasswordBody, refreshBody, requestResetBody, resetPasswordBody, signinBody, signupBody } from '@herald/schemas';

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
