import { z } from 'zod';
import { fcmProvider } from './fcm-credentials';
import type { PushProvider } from './types';

/**
 * The provider types Herald supports. Each type is one module declaring its credential schema, its
 * public description (served by GET /push-config/provider-schemas) and which fields are secret.
 * Adding a type (e.g. APNs) means adding `<type>-credentials.ts` and one entry in PROVIDERS below.
 */

/** Credentials in their canonical, validated shape: field name → value. */
export type ProviderCredentials = Record<string, string>;

/** One credential field, as described to API users. */
export interface CredentialField {
  name: string;
  type: 'string';
  required: boolean;
  /** Encrypted at rest and never returned (shown as `SECRET_MASK`). */
  secret: boolean;
  description: string;
}

/** Options a live client may need besides its credentials (e.g. `FCM_EMULATOR_HOST`). */
export interface ProviderClientOptions {
  emulatorHost?: string;
  [option: string]: unknown;
}

export interface ProviderDefinition<C extends ProviderCredentials = ProviderCredentials> {
  /** The `provider` value in requests, e.g. `fcm`. */
  provider: string;
  /** Human-readable name. */
  name: string;
  fields: readonly CredentialField[];
  /** Validates and normalises the full credentials. Issue messages must never contain the input. */
  schema: z.ZodType<C>;
  /** Maps other accepted shapes of the credentials (e.g. a downloaded key file) to the canonical one. */
  normalize?(input: Record<string, unknown>): Record<string, unknown>;
  /**
   * Builds a live client from decrypted credentials. Wired where the client lives (e.g. fcm/), so
   * that this registry does not depend on any client; `createPushProvider` refuses a type without it.
   */
  create?(credentials: C, options?: ProviderClientOptions): PushProvider;
}

/** Public description of a provider type (GET /push-config/provider-schemas). */
export interface ProviderDescription {
  provider: string;
  name: string;
  fields: CredentialField[];
}

/** What a secret field reads as in every response. */
export const SECRET_MASK = '********';

const PROVIDERS: readonly ProviderDefinition[] = [fcmProvider as unknown as ProviderDefinition];

const byType = new Map(PROVIDERS.map((p) => [p.provider, p]));

export const providerTypes = (): string[] => PROVIDERS.map((p) => p.provider);

export const getProviderDefinition = (provider: string): ProviderDefinition | undefined => byType.get(provider);

export function describeProvider(def: ProviderDefinition): ProviderDescription {
  return { provider: def.provider, name: def.name, fields: def.fields.map((f) => ({ ...f })) };
}

export const describeProviders = (): ProviderDescription[] => PROVIDERS.map(describeProvider);

export const secretFieldNames = (def: ProviderDefinition): string[] => def.fields.filter((f) => f.secret).map((f) => f.name);

export interface CredentialIssue {
  /** Path inside the credentials object, e.g. `privateKey` ('' for the object itself). */
  path: string;
  message: string;
}

export type CredentialsResult<C = ProviderCredentials> = { success: true; credentials: C } | { success: false; issues: CredentialIssue[] };

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
  return { success: false, issues: result.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message })) };
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
  if (!def.create) throw new Error(`No client is registered for provider type "${provider}"`);
  return def.create(credentials, options);
}
