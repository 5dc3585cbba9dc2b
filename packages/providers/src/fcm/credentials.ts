import { createPrivateKey } from 'node:crypto';
import { z } from 'zod';
import type { FcmCredentials } from '../types';

/**
 * FCM credentials: a Google service account. Validation messages
 * name the field and never contain what was sent: a mistyped key must not end up in a response or log.
 */

const MAX_PRIVATE_KEY_LENGTH = 16_384;

const isMissing = (input: unknown) => input === undefined || input === null;

const stringField = (field: string) => z.string({ error: (iss) => (isMissing(iss.input) ? `${field} is required` : `${field} must be a string`) });

/** Keys pasted out of a JSON file often arrive with literal `\n` escapes, or with CRLF line ends. */
export const normalizePrivateKey = (value: string) => value.replace(/\\r\\n|\\n|\\r/g, '\n').replace(/\r\n?/g, '\n').trim();

/**
 * True if `pem` is an unencrypted RSA private key in PEM form: Google signs service-account tokens
 * with RS256 only, so another key type would be accepted here and rejected at the first delivery.
 */
export function isPemPrivateKey(pem: string): boolean {
  if (!/^-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/.test(pem)) return false;
  try {
    const key = createPrivateKey({ key: pem, format: 'pem' });
    return key.type === 'private' && key.asymmetricKeyType === 'rsa';
  } catch {
    return false;
  }
}

export const fcmCredentialsSchema = z.object({
  projectId: stringField('projectId').trim().min(1, 'projectId is required').max(255, 'projectId must be at most 255 characters'),
  clientEmail: stringField('clientEmail')
    .trim()
    .max(254, 'clientEmail must be at most 254 characters')
    .pipe(z.email({ error: 'clientEmail must be a valid e-mail address' })),
  privateKey: stringField('privateKey')
    .min(1, 'privateKey is required')
    .max(MAX_PRIVATE_KEY_LENGTH, `privateKey must be at most ${MAX_PRIVATE_KEY_LENGTH} characters`)
    .transform(normalizePrivateKey)
    .refine(isPemPrivateKey, {
      error: 'privateKey must be an unencrypted RSA private key in PEM form, including its BEGIN and END lines',
    }),
}) satisfies z.ZodType<FcmCredentials>;

/** Field names of the service-account JSON file Google lets you download, mapped to Herald's. */
const SERVICE_ACCOUNT_FIELDS: Record<string, keyof FcmCredentials> = {
  project_id: 'projectId',
  client_email: 'clientEmail',
  private_key: 'privateKey',
};

/** Accepts the downloaded service-account JSON as is; Herald's own names win when both are present. */
export function normalizeFcmCredentials(input: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...input };
  for (const [snake, camel] of Object.entries(SERVICE_ACCOUNT_FIELDS)) {
    if (snake in out) {
      if (out[camel] === undefined) out[camel] = out[snake];
      delete out[snake];
    }
  }
  return out;
}
