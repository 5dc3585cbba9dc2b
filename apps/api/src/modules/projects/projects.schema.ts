import { z } from 'zod';
import { uuid } from '../../http/uuid';

const roleEnum = z.enum(['team_member', 'project_admin']);

export const projectName = z.string({ error: 'name must be a string' }).trim().min(1, 'name is required').max(200, 'name is too long');

export const createProjectBody = z.object({ name: projectName });

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
