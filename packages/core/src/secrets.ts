import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A URL-safe random token with `bytes` bytes of entropy. */
export const randomToken = (bytes = 32) => randomBytes(bytes).toString('base64url');

/**
 * SHA-256 of a high-entropy secret (refresh, reset and invite tokens, API keys). Such secrets cannot
 * be guessed, so a fast unsalted hash is enough and lets us look them up by hash in one indexed query.
 */
export const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex');


/** API keys: `hk_` + 40 base62 characters (~238 bits). The first 11 characters are shown as its prefix. */
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export function generateApiKey(): { key: string; prefix: string } {
  const bytes = randomBytes(40);
  let body = '';
  for (const b of bytes) body += BASE62[b % 62];
  const key = `hk_${body}`;
  return { key, prefix: key.slice(0, 11) };
}

/**
 * Whether an `Authorization` header is `Bearer <expected>`, compared in constant time (on the
 * SHA-256 of both, so that the length of the expected token does not leak either).
 */
export function bearerMatches(header: string | undefined, expected: string): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!match) return false;
  return timingSafeEqual(createHash('sha256').update(match[1]).digest(), createHash('sha256').update(expected).digest());
}
