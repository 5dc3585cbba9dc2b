import { z } from 'zod';

export const projectName = z.string({ error: 'name must be a string' }).trim().min(1, 'name is required').max(200, 'name is too long');

export const createProjectBody = z.object({ name: projectName });

const keyName = z.string({ error: 'name must be a string' }).trim().min(1, 'name is required').max(100, 'name is too long');

/**
 * What an API key may do (docs/api.md#api-key-scopes). A key is created with all of them unless it names
 * fewer, so that keys made before scopes existed keep working.
 */
export const API_KEY_SCOPES = ['devices:write', 'devices:read', 'send', 'notifications:read', 'templates:read', 'templates:write', 'events:write'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

export const apiKeyScopes = z
  .array(z.enum(API_KEY_SCOPES, { error: `scopes must each be one of: ${API_KEY_SCOPES.join(', ')}` }), { error: 'scopes must be an array' })
  .min(1, 'scopes must name at least one scope')
  .max(API_KEY_SCOPES.length * 2, 'scopes names too many scopes')
  .transform((scopes) => API_KEY_SCOPES.filter((s) => scopes.includes(s)));

/** When a key stops working: an ISO 8601 time in the future (one in the past would create a dead key). */
export const apiKeyExpiresAt = z.iso
  .datetime({ offset: true, error: 'expiresAt must be an ISO 8601 date-time' })
  .refine((at) => Date.parse(at) > Date.now(), { error: 'expiresAt must be in the future' });

export const createKeyBody = z.object({ name: keyName, scopes: apiKeyScopes.optional(), expiresAt: apiKeyExpiresAt.optional() });

/**
 * At least one field: unknown fields are ignored (docs/api.md#conventions), so a typo such as `{ "enable": false }`
 * would otherwise answer 200 and leave a key enabled that its owner believes disabled.
 */
export const updateKeyBody = z
  .object({
    name: keyName.optional(),
    enabled: z.boolean({ error: 'enabled must be a boolean' }).optional(),
    scopes: apiKeyScopes.optional(),
    /** `null` removes the expiry. */
    expiresAt: apiKeyExpiresAt.nullable().optional(),
  })
  .refine((b) => b.name !== undefined || b.enabled !== undefined || b.scopes !== undefined || b.expiresAt !== undefined, {
    error: 'Provide name, enabled, scopes or expiresAt',
  });
