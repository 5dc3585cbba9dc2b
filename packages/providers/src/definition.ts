import type { z } from 'zod';
import type { ErrorDetail } from '@herald/core';
import type { PushProvider } from './types';

/**
 * What a provider type is: its credential schema, its public description (served by
 * GET /push-config/provider-schemas), which fields are secret, and how to build its client.
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
  /** Builds a live client from decrypted credentials. */
  create(credentials: C, options?: ProviderClientOptions): PushProvider;
}

/** Public description of a provider type (GET /push-config/provider-schemas). */
export interface ProviderDescription {
  provider: string;
  name: string;
  fields: CredentialField[];
}

/** What a secret field reads as in every response. */
export const SECRET_MASK = '********';

/** A credential problem: its path inside the credentials object ('' for the object itself) and why. */
export type CredentialIssue = ErrorDetail;

export type CredentialsResult<C = ProviderCredentials> = { success: true; credentials: C } | { success: false; issues: CredentialIssue[] };
