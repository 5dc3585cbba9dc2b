import { z } from 'zod';
import { uuid } from '@herald/schemas';

// The request bodies, which the dashboard validates with too, are defined in @herald/schemas.
export { createProjectBody } from '@herald/schemas';

const roleEnum = z.enum(['team_member', 'project_admin']);

export const projectParams = z.object({ projectId: uuid('projectId') });

export const memberParams = z.object({ projectId: uuid('projectId'), userId: uuid('userId') });

export const projectResponse = z.object({ id: z.uuid(), name: z.string(), createdAt: z.iso.datetime() });

export const projectListResponse = z.array(projectResponse.extend({ role: roleEnum, isOwner: z.boolean() }));

export const teamResponse = z.array(
  z.object({
    userId: z.uuid(),
    email: z.email(),
    firstName: z.string(),
    lastName: z.string(),
    role: roleEnum,
    isOwner: z.boolean(),
    joinedAt: z.iso.datetime(),
  }),
);

export const messageResponse = z.object({ message: z.string() });
