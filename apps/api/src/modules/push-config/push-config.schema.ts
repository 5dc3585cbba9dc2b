import { z } from 'zod';
import { providerTypes } from '@herald/providers';
import { uuid } from '../../http/uuid';

export const PRIORITY_MIN = 0;
export const PRIORITY_MAX = 1_000_000;
export const NAME_MAX = 100;
/** A project has a handful of providers; the cap only bounds one transaction. */
export const PRIORITIES_MAX = 100;

const isMissing = (input: unknown) => input === undefined || input === null;

const booleanField = (field: string) => z.boolean({ error: (iss) => (isMissing(iss.input) ? `${field} is required` : `${field} must be a boolean`) });

const nameField = z
  .string({ error: (iss) => (isMissing(iss.input) ? 'name is required' : 'name must be a string') })
  .trim()
  .min(1, 'name is required')
  .max(NAME_MAX, `name must be at most ${NAME_MAX} characters`);

const priorityField = z
  .number({ error: (iss) => (isMissing(iss.input) ? 'priority is required' : 'priority must be an integer') })
  .int('priority must be an integer')
  .min(PRIORITY_MIN, `priority must be between ${PRIORITY_MIN} and ${PRIORITY_MAX}`)
  .max(PRIORITY_MAX, `priority must be between ${PRIORITY_MIN} and ${PRIORITY_MAX}`);

/** Shape-checked only here: the provider's own schema validates it (with the stored one merged in on update). */
const configField = z.unknown().refine((v) => v !== undefined && v !== null, { error: 'config is required' });

/** Optional in the schema so that the route builder answers a missing projectId with its own message. */
export const projectQuery = z.object({ projectId: uuid('projectId').optional() });

export const providerParams = z.object({ providerConfigId: uuid('providerConfigId') });

export const providerTypeParams = z.object({ provider: z.string().max(64, 'provider is too long') });

export const createPushConfigBody = z.object({ enabled: booleanField('enabled').optional().default(true) });

export const updatePushConfigBody = z.object({ enabled: booleanField('enabled') });

export const createProviderBody = z.object({
  provider: z.string({ error: (iss) => (isMissing(iss.input) ? 'provider is required' : 'provider must be a string') }).refine((p) => providerTypes().includes(p), {
    error: `provider must be one of: ${providerTypes().join(', ')}`,
  }),
  name: nameField,
  priority: priorityField,
  enabled: booleanField('enabled').optional().default(true),
  config: configField,
});

/** Any field of the create body but `provider`, which may be sent only with its current value. */
export const updateProviderBody = z.object({
  provider: z.string({ error: 'provider must be a string' }).optional(),
  name: nameField.optional(),
  priority: priorityField.optional(),
  enabled: booleanField('enabled').optional(),
  config: z.unknown().optional(),
});

export const updatePrioritiesBody = z.object({
  providers: z
    .array(z.object({ id: uuid('id'), priority: priorityField }), {
      error: (iss) => (isMissing(iss.input) ? 'providers is required' : 'providers must be an array of { id, priority }'),
    })
    .min(1, 'providers must not be empty')
    .max(PRIORITIES_MAX, `providers must have at most ${PRIORITIES_MAX} entries`)
    .refine((list) => new Set(list.map((p) => p.id)).size === list.length, { error: 'each provider id may appear only once' }),
});

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
