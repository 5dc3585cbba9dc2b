import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { openSecret, sealSecret, SecretError, type KeyRing } from './crypto';

const ring = (...entries: [string, Buffer][]): KeyRing => ({ keys: new Map(entries), currentKeyId: entries[0][0] });
const oldKey = randomBytes(32);
const newKey = randomBytes(32);

function expectSecretError(fn: () => unknown, reason: SecretError['reason']) {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(SecretError);
    expect((err as SecretError).reason).toBe(reason);
    return err as SecretError;
  }
  throw new Error('expected a SecretError');
}

/** Flips one bit of the base64url part at `index` of an envelope. */
function flip(envelope: string, index: number): string {
  const parts = envelope.split('.');
  const bytes = Buffer.from(parts[index], 'base64url');
  bytes[0] ^= 1;
  parts[index] = bytes.toString('base64url');
  return parts.join('.');
}

describe('sealSecret / openSecret', () => {
  const keys = ring(['k-old', oldKey]);

  it('round-trips, with a fresh IV per envelope and no plaintext inside', () => {
    const { privateKey } = generateKeyPairSync('ed25519', { privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
    const secret = JSON.stringify({ privateKey });
    const a = sealSecret(secret, keys, 'row-1');
    const b = sealSecret(secret, keys, 'row-1');
    expect(a).toMatch(/^v1\.[\w-]{16}\.[\w-]{22}\.[\w-]+$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('PRIVATE KEY');
    expect(openSecret(a, 'k-old', keys, 'row-1')).toBe(secret);
    expect(openSecret(b, 'k-old', keys, 'row-1')).toBe(secret);
  });

  it('detects tampering with the ciphertext, the tag or the IV', () => {
    const envelope = sealSecret('top secret', keys);
    for (const part of [1, 2, 3]) expectSecretError(() => openSecret(flip(envelope, part), 'k-old', keys), 'authentication_failed');
  });

  it('refuses an envelope opened for another record (context is authenticated)', () => {
    const envelope = sealSecret('top secret', keys, 'row-1');
    expectSecretError(() => openSecret(envelope, 'k-old', keys, 'row-2'), 'authentication_failed');
  });

  it('refuses malformed envelopes', () => {
    expectSecretError(() => openSecret('not an envelope', 'k-old', keys), 'invalid_envelope');
    expectSecretError(() => openSecret('v2.a.b.c', 'k-old', keys), 'invalid_envelope');
    expectSecretError(() => openSecret('v1.AAAA.AAAA.AAAA', 'k-old', keys), 'invalid_envelope');
  });

  it('supports rotation: old envelopes open with the key named by their id, new ones use the current key', () => {
    const sealedBefore = sealSecret('before rotation', ring(['k-old', oldKey]));
    const rotated = ring(['k-new', newKey], ['k-old', oldKey]);
    const sealedAfter = sealSecret('after rotation', rotated);
    expect(openSecret(sealedBefore, 'k-old', rotated)).toBe('before rotation');
    expect(openSecret(sealedAfter, 'k-new', rotated)).toBe('after rotation');
    // the new envelope was not sealed with the old key
    expectSecretError(() => openSecret(sealedAfter, 'k-old', rotated), 'authentication_failed');
  });

  it('names a missing key clearly, with no secret in the message', () => {
    const envelope = sealSecret('top secret', ring(['k-old', oldKey]));
    const err = expectSecretError(() => openSecret(envelope, 'k-old', ring(['k-new', newKey])), 'missing_key');
    expect(err.message).toMatch(/Encryption key "k-old" is not configured/);
    expect(err.message).not.toContain('top secret');
    expectSecretError(() => sealSecret('x', { keys: new Map(), currentKeyId: 'nope' }), 'missing_key');
  });

  it('refuses a key of the wrong length', () => {
    expectSecretError(() => sealSecret('x', ring(['short', randomBytes(16)])), 'missing_key');
  });
});
