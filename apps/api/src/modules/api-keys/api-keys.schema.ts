import { z } from 'zod';
import { uuid } from '../../http/uuid';

const keyName = z.string({ error: 'name must be a string' }).trim().min(1, 'name is required').max(100, 'name is too long');

export const projectParams = z.object({ projectId: uuid('projectId') });

export const keyParams = z.object({ projectId: uuid('projectId'), keyId: uuid('keyId') });

export const createKeyBody = z.object({ name: keyName });

/**
 * At least one field: unknown fields are ignored (docs/api.md#conventions), so a typo such as `{ "enable": false }`
 * would otherwise answer 200 and leave a key enabled that its owner believes disabled.
 */
export const updateKeyBody = z
  .object({ name: keyName.optional(), enabled: z.boolean({ error: 'enabled must be a boolean' }).optional() })
  .refine((b) => b.name !== undefined || b.enabled !== undefined, { error: 'Provide name or enabled' });

export const apiKeyResponse = z.object({
  id: z.uuid(),
  name: z.string(),
  prefix: z.string(),
  enabled: z.boolean(),
  createdAt: z.iso.datetime(),
  lastUsedAt: z.iso.datetime().nullable(),
});

export const createdKeyResponse = apiKeyResponse.omit({ lastUsedAt: true }).extend({ key: z.string() });

export const messageResponse = z.object({ message: z.string() });
