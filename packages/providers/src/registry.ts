import { zodIssueDetails } from '@herald/core';
import { SECRET_MASK, type CredentialIssue, type CredentialsResult, type ProviderClientOptions, type ProviderCredentials, type ProviderDefinition, type ProviderDescription } from './definition';
import { fcmProvider } from './fcm/definition';
import type { PushProvider } from './types';

export * from './definition';

/**
 * The provider types Herald supports. Each type is one module declaring its credential schema, its
 * public description (served by GET /push-config/provider-schemas) and which fields are secret.
 * Adding a type (e.g. APNs) means adding its definition (as `fcm/definition.ts` does) and one entry in
 * PROVIDERS below.
 */

const PROVIDERS: readonly ProviderDefinition[] = [fcmProvider as unknown as ProviderDefinition];

const byType = new Map(PROVIDERS.map((p) => [p.provider, p]));

export const providerTypes = (): string[] => PROVIDERS.map((p) => p.provider);

export const getProviderDefinition = (provider: string): ProviderDefinition | undefined => byType.get(provider);

export function describeProvider(def: ProviderDefinition): ProviderDescription {
  return { provider: def.provider, name: def.name, fields: def.fields.map((f) => ({ ...f })) };
}

export const describeProviders = (): ProviderDescription[] => PROVIDERS.map(describeProvider);

export const secretFieldNames = (def: ProviderDefinition): string[] => def.fields.filter((f) => f.secret).map((f) => f.name);

/**
 * Reads the `config` a client sent: an object, or a JSON string of one (a pasted key file), mapped
 * to the canonical field names. Unknown keys are dropped. Never echoes the input in an issue.
 */
export function readCredentialInput(def: ProviderDefinition, input: unknown): { success: true; values: Record<string, unknown> } | { success: false; issues: CredentialIssue[] } {
  let value = input;
  if (typeof value === 'string' && value.trim().startsWith('{')) {
    try {
      value = JSON.parse(value);
    } catch {
      return { success: false, issues: [{ path: '', message: 'config is not valid JSON' }] };
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { success: false, issues: [{ path: '', message: 'config must be an object' }] };
  }
  const normalized = def.normalize ? def.normalize(value as Record<string, unknown>) : (value as Record<string, unknown>);
  const known = new Set(def.fields.map((f) => f.name));
  return { success: true, values: Object.fromEntries(Object.entries(normalized).filter(([k, v]) => known.has(k) && v !== undefined)) };
}

function validate<C extends ProviderCredentials>(def: ProviderDefinition<C>, values: Record<string, unknown>): CredentialsResult<C> {
  const result = def.schema.safeParse(values);
  if (result.success) return { success: true, credentials: result.data };
  return { success: false, issues: zodIssueDetails(result.error) };
}

/** Validates a complete set of credentials (creation). */
export function parseCredentials(def: ProviderDefinition, input: unknown): CredentialsResult {
  const read = readCredentialInput(def, input);
  return read.success ? validate(def, read.values) : read;
}

/**
 * Merges a partial `config` into stored credentials (update), then validates the result. A secret
 * field sent back as `SECRET_MASK` (a form round-tripping what it read) keeps the stored value.
 * `stored` is only called when a secret field is missing from the input, so a full replacement
 * needs no decryption.
 */
export function mergeCredentials(def: ProviderDefinition, stored: () => ProviderCredentials, input: unknown): CredentialsResult {
  const read = readCredentialInput(def, input);
  if (!read.success) return read;
  const secrets = new Set(secretFieldNames(def));
  const values = Object.fromEntries(Object.entries(read.values).filter(([k, v]) => !(secrets.has(k) && v === SECRET_MASK)));
  const needsStored = def.fields.some((f) => !(f.name in values));
  return validate(def, needsStored ? { ...stored(), ...values } : values);
}

/** Splits credentials into the public part (stored as JSON) and the secret part (sealed). */
export function splitCredentials(def: ProviderDefinition, credentials: ProviderCredentials): { config: Record<string, string>; secrets: Record<string, string> } {
  const config: Record<string, string> = {};
  const secrets: Record<string, string> = {};
  for (const f of def.fields) {
    const value = credentials[f.name];
    if (value === undefined) continue;
    (f.secret ? secrets : config)[f.name] = value;
  }
  return { config, secrets };
}

/** The credentials as shown to API users: public fields as stored, every secret field masked. */
export function maskCredentials(def: ProviderDefinition | undefined, config: Record<string, unknown>): Record<string, unknown> {
  if (!def) return { ...config };
  return Object.fromEntries(def.fields.map((f) => [f.name, f.secret ? SECRET_MASK : (config[f.name] ?? null)]));
}

/** Builds a live client for a stored provider configuration. */
export function createPushProvider(provider: string, credentials: ProviderCredentials, options?: ProviderClientOptions): PushProvider {
  const def = getProviderDefinition(provider);
  if (!def) throw new Error(`Unknown provider type "${provider}"`);
  return def.create(credentials, options);
}
