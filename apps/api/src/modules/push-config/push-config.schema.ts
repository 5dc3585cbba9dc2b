import { z } from 'zod';
import { createProviderBody as providerBody, uuid } from '@herald/schemas';
import { providerTypes } from '@herald/providers';

// The request bodies, which the dashboard validates with too, are defined in @herald/schemas.
export { createPushConfigBody, updatePrioritiesBody, updatePushConfigBody, updateProviderBody } from '@herald/schemas';

export const createProviderBody = providerBody(providerTypes());

/** Optional in the schema so that the route builder answers a missing projectId with its own message. */
export const projectQuery = z.object({ projectId: uuid('projectId').optional() });

export const providerParams = z.object({ providerConfigId: uuid('providerConfigId') });

export const providerTypeParams = z.object({ provider: z.string().max(64, 'provider is too long') });

export const pushConfigResponse = z.object({
  id: z.uuid(),
  projectId: z.uuid(),
  enabled: z.boolean(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});

export const providerResponse = z.object({
  id: z.uuid(),
  provider: z.string(),
  name: z.string(),
  priority: z.number().int(),
  enabled: z.boolean(),
  config: z.record(z.string(), z.unknown()),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});

export const providerSchemaResponse = z.object({
  provider: z.string(),
  name: z.string(),
  fields: z.array(z.object({ name: z.string(), type: z.string(), required: z.boolean(), secret: z.boolean(), description: z.string() })),
});

export const messageResponse = z.object({ message: z.string() });

export const providerTestResponse = z.object({ ok: z.boolean(), error: z.string().optional() });
