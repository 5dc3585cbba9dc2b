import { z } from 'zod';
import { uuid } from './ids';

export const PRIORITY_MIN = 0;
export const PRIORITY_MAX = 1_000_000;
const NAME_MAX = 100;
/** A project has a handful of providers; the cap only bounds one transaction. */
const PRIORITIES_MAX = 100;

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

export const createPushConfigBody = z.object({ enabled: booleanField('enabled').optional().default(true) });

export const updatePushConfigBody = z.object({ enabled: booleanField('enabled') });

/** The body that adds a provider, for the provider types the caller knows (the API's registry; the dashboard's `fcm`). */
export const createProviderBody = (providerTypes: readonly string[]) =>
  z.object({
    provider: z.string({ error: (iss) => (isMissing(iss.input) ? 'provider is required' : 'provider must be a string') }).refine((p) => providerTypes.includes(p), {
      error: `provider must be one of: ${providerTypes.join(', ')}`,
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
