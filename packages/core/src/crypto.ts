import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Envelope encryption for secrets at rest (provider private keys) (docs/operations.md#rotating-the-credentials-key): AES-256-GCM with a
 * random 96-bit IV per record. The key that sealed an envelope is stored next to it (its id), so keys
 * can be rotated: new envelopes use the current key, old ones open with the key their id names.
 */

/** Structurally the same as `@herald/config`'s `EncryptionKeys`, without depending on it. */
export interface KeyRing {
  /** Key id → 32-byte key. */
  keys: ReadonlyMap<string, Buffer>;
  /** Id of the key new envelopes are sealed with. */
  currentKeyId: string;
}

const VERSION = 'v1';
const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export type SecretErrorReason = 'missing_key' | 'invalid_envelope' | 'authentication_failed';

/** Why a secret cannot be opened. Its message names the key id, never any secret material. */
export class SecretError extends Error {
  override name = 'SecretError';
  constructor(
    readonly reason: SecretErrorReason,
    message: string,
  ) {
    super(message);
  }
}

function keyFor(keyId: string, ring: Pick<KeyRing, 'keys'>): Buffer {
  const key = ring.keys.get(keyId);
  if (!key) {
    throw new SecretError(
      'missing_key',
      `Encryption key "${keyId}" is not configured: set it as CREDENTIALS_ENCRYPTION_KEY or list it in CREDENTIALS_ENCRYPTION_KEYS_PREVIOUS`,
    );
  }
  if (key.length !== 32) throw new SecretError('missing_key', `Encryption key "${keyId}" must be 32 bytes`);
  return key;
}

/**
 * Seals `plaintext` with the ring's current key. `context` (additional authenticated data) binds the
 * envelope to its record, so an envelope copied into another row does not open there.
 * Returns `v1.<iv>.<tag>.<ciphertext>` (base64url parts); store `ring.currentKeyId` beside it.
 */
export function sealSecret(plaintext: string, ring: KeyRing, context = ''): string {
  const key = keyFor(ring.currentKeyId, ring);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join('.');
}

/** Opens an envelope sealed by `sealSecret` with the key named `keyId` and the same `context`. */
export function openSecret(envelope: string, keyId: string, ring: Pick<KeyRing, 'keys'>, context = ''): string {
  const key = keyFor(keyId, ring);
  const parts = envelope.split('.');
  if (parts.length !== 4 || parts[0] !== VERSION) throw new SecretError('invalid_envelope', 'Sealed secret has an unknown format');
  const [, ivPart, tagPart, dataPart] = parts;
  const iv = Buffer.from(ivPart, 'base64url');
  const tag = Buffer.from(tagPart, 'base64url');
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new SecretError('invalid_envelope', 'Sealed secret has an unknown format');
  try {
    const decipher = createDecipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(Buffer.from(dataPart, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretError('authentication_failed', `Sealed secret failed authentication with key "${keyId}": it was altered, or sealed with another key or for another record`);
  }
}
