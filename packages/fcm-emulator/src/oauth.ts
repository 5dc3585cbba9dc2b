import { createPrivateKey, createPublicKey, verify, type KeyObject } from 'node:crypto';

export const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const ACCEPTED_SCOPES = new Set([
  'https://www.googleapis.com/auth/firebase.messaging',
  'https://www.googleapis.com/auth/cloud-platform',
]);
/** Google accepts assertions whose `iat` is a little in the future (clock skew), and lifetimes up to one hour. */
const MAX_SKEW_S = 300;
const MAX_LIFETIME_S = 3600;

/** A service account the emulator trusts: either key of the pair (the public one is derived from a private key). */
export interface ServiceAccountInput {
  projectId: string;
  clientEmail: string;
  publicKey?: string | KeyObject;
  privateKey?: string | KeyObject;
}

/** The JSON file Google Cloud hands out for a service-account key. */
export interface GoogleServiceAccountJson {
  project_id: string;
  client_email: string;
  private_key: string;
}

export interface ServiceAccount {
  projectId: string;
  clientEmail: string;
  publicKey: KeyObject;
}

export function toServiceAccount(input: ServiceAccountInput | GoogleServiceAccountJson): ServiceAccount {
  if ('client_email' in input) {
    return toServiceAccount({ projectId: input.project_id, clientEmail: input.client_email, privateKey: input.private_key });
  }
  const { projectId, clientEmail, publicKey, privateKey } = input;
  if (!projectId || !clientEmail) throw new Error('A service account needs projectId and clientEmail');
  let key: KeyObject;
  if (publicKey) key = typeof publicKey === 'string' ? createPublicKey(publicKey) : publicKey;
  else if (privateKey) key = createPublicKey(typeof privateKey === 'string' ? createPrivateKey(privateKey) : privateKey);
  else throw new Error(`Service account ${clientEmail} needs a publicKey or a privateKey`);
  return { projectId, clientEmail, publicKey: key };
}

export interface AssertionClaims {
  iss: string;
  scope: string;
  aud: string;
  iat: number;
  exp: number;
}

export interface ParsedAssertion {
  claims: AssertionClaims;
  signingInput: string;
  signature: Buffer;
}

export type GrantError = { error: 'invalid_grant' | 'invalid_scope' | 'invalid_request'; description: string };

/** Decodes a compact RS256 JWT without checking its signature. */
export function parseAssertion(assertion: string): ParsedAssertion | GrantError {
  const parts = assertion.split('.');
  if (parts.length !== 3) return { error: 'invalid_grant', description: 'Invalid JWT: not a compact JWS.' };
  let header: unknown;
  let claims: unknown;
  try {
    header = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8'));
    claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
  } catch {
    return { error: 'invalid_grant', description: 'Invalid JWT: header or claims are not JSON.' };
  }
  if (!isRecord(header) || header.alg !== 'RS256') {
    return { error: 'invalid_grant', description: 'Invalid JWT: the signing algorithm must be RS256.' };
  }
  if (
    !isRecord(claims) ||
    typeof claims.iss !== 'string' ||
    typeof claims.aud !== 'string' ||
    typeof claims.iat !== 'number' ||
    typeof claims.exp !== 'number'
  ) {
    return { error: 'invalid_grant', description: 'Invalid JWT: iss, aud, iat and exp are required.' };
  }
  if (typeof claims.scope !== 'string') {
    return { error: 'invalid_scope', description: 'Empty or missing scope not allowed.' };
  }
  return {
    claims: claims as unknown as AssertionClaims,
    signingInput: `${parts[0]}.${parts[1]}`,
    signature: Buffer.from(parts[2], 'base64url'),
  };
}

export function verifySignature(parsed: ParsedAssertion, publicKey: KeyObject): boolean {
  return verify('RSA-SHA256', Buffer.from(parsed.signingInput), publicKey, parsed.signature);
}

/** The checks Google makes on the claims, apart from the signature. `nowS` is in seconds. */
export function checkClaims(claims: AssertionClaims, acceptedAudiences: ReadonlySet<string>, nowS: number): GrantError | undefined {
  if (!acceptedAudiences.has(claims.aud)) {
    return { error: 'invalid_grant', description: 'Invalid JWT: Failed audience check.' };
  }
  if (claims.iat > nowS + MAX_SKEW_S || claims.exp <= nowS || claims.exp - claims.iat > MAX_LIFETIME_S) {
    return {
      error: 'invalid_grant',
      description:
        'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.',
    };
  }
  if (!claims.scope.split(' ').some((s) => ACCEPTED_SCOPES.has(s))) {
    return { error: 'invalid_scope', description: 'Invalid OAuth scope or ID token audience provided.' };
  }
  return undefined;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
