import { z } from 'zod';

export const projectName = z.string({ error: 'name must be a string' }).trim().min(1, 'name is required').max(200, 'name is too long');

export const createProjectBody = z.object({ name: projectName });

const keyName = z.string({ error: 'name must be a string' }).trim().min(1, 'name is required').max(100, 'name is too long');

export const createKeyBody = z.object({ name: keyName });

/**
 * At least one field: unknown fields are ignored (docs/api.md#conventions), so a typo such as `{ "enable": false }`
 * would otherwise answer 200 and leave a key enabled that its owner believes disabled.
 */
export const updateKeyBody = z
  .object({ name: keyName.optional(), enabled: z.boolean({ error: 'enabled must be a boolean' }).optional() })
  .refine((b) => b.name !== undefined || b.enabled !== undefined, { error: 'Provide name or enabled' });
