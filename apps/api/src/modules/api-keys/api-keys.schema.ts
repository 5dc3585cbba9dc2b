import { z } from 'zod';
import { API_KEY_SCOPES, uuid } from '@herald/schemas';

// The request bodies, which the dashboard validates with too, are defined in @herald/schemas.
export { createKeyBody, updateKeyBody } from '@herald/schemas';

export const projectParams = z.object({ projectId: uuid('projectId') });

export const keyParams = z.object({ projectId: uuid('projectId'), keyId: uuid('keyId') });

export const apiKeyResponse = z.object({
  id: z.uuid(),
  name: z.string(),
  prefix: z.string(),
  enabled: z.boolean(),
  scopes: z.array(z.enum(API_KEY_SCOPES)),
  expiresAt: z.iso.datetime().nullable(),
  createdAt: z.iso.datetime(),
  lastUsedAt: z.iso.datetime().nullable(),
});

export const createdKeyResponse = apiKeyResponse.omit({ lastUsedAt: true }).extend({ key: z.string() });

export const messageResponse = z.object({ message: z.string() });
