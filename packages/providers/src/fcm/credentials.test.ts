import { generateKeyPairSync } from 'node:crypto';
import { fcmCredentialsSchema, isPemPrivateKey, normalizeFcmCredentials, normalizePrivateKey } from './credentials';
import { fcmProvider } from './definition';
import { parseCredentials } from '../registry';

const { privateKey, publicKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});
const pkcs1 = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
}).privateKey;
const keyBody = privateKey.split('\n')[1];
const valid = { projectId: 'my-firebase', clientEmail: 'herald@my-firebase.iam.gserviceaccount.com', privateKey };

describe('isPemPrivateKey', () => {
  it('accepts PKCS#8 and PKCS#1 private keys', () => {
    expect(isPemPrivateKey(privateKey)).toBe(true);
    expect(isPemPrivateKey(pkcs1)).toBe(true);
  });

  it('refuses public keys, garbage, bare base64 and a truncated key', () => {
    expect(isPemPrivateKey(publicKey)).toBe(false);
    expect(isPemPrivateKey('<PRIVATE_KEY>')).toBe(false);
    expect(isPemPrivateKey(keyBody)).toBe(false);
    const footer = privateKey.trim().split('\n').pop()!;
    expect(isPemPrivateKey(`${privateKey.slice(0, 200)}\n${footer}`)).toBe(false);
  });

  it('refuses EC and Ed25519 keys: Google signs service-account tokens with RS256 only', () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256', privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
    const ed = generateKeyPairSync('ed25519', { privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
    expect(isPemPrivateKey(ec.privateKey)).toBe(false);
    expect(isPemPrivateKey(ed.privateKey)).toBe(false);
  });

  it('refuses an encrypted private key (Herald has no passphrase for it)', () => {
    const encrypted = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'pw' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    }).privateKey;
    expect(isPemPrivateKey(encrypted)).toBe(false);
  });
});

describe('normalizePrivateKey', () => {
  it('turns literal \\n escapes and CRLF line ends into newlines, and trims', () => {
    const escaped = privateKey.replace(/\n/g, '\\n');
    expect(normalizePrivateKey(`  ${escaped}  `)).toBe(privateKey.trim());
    expect(normalizePrivateKey(privateKey.replace(/\n/g, '\r\n'))).toBe(privateKey.trim());
  });
});

describe('fcm credentials schema', () => {
  it('accepts valid credentials and normalises them', () => {
    const r = fcmCredentialsSchema.safeParse({ ...valid, clientEmail: ` ${valid.clientEmail} `, privateKey: privateKey.replace(/\n/g, '\\n') });
    expect(r.success && r.data).toEqual({ ...valid, privateKey: privateKey.trim() });
  });

  it('names each bad field and never echoes what was sent', () => {
    const sent = { projectId: '', clientEmail: 'not-an-email', privateKey: `${keyBody} is not a PEM` };
    const r = fcmCredentialsSchema.safeParse(sent);
    expect(r.success).toBe(false);
    const issues = r.error!.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
    expect(issues).toEqual([
      { path: 'projectId', message: 'projectId is required' },
      { path: 'clientEmail', message: 'clientEmail must be a valid e-mail address' },
      { path: 'privateKey', message: expect.stringMatching(/^privateKey must be an unencrypted RSA private key in PEM form/) },
    ]);
    expect(JSON.stringify(issues)).not.toContain(keyBody);
    expect(JSON.stringify(issues)).not.toContain('not-an-email');
  });

  it('says which fields are missing or of the wrong type', () => {
    const r = fcmCredentialsSchema.safeParse({ clientEmail: 42 });
    expect(r.error!.issues.map((i) => `${i.path.join('.')}: ${i.message}`)).toEqual([
      'projectId: projectId is required',
      'clientEmail: clientEmail must be a string',
      'privateKey: privateKey is required',
    ]);
  });
});

describe('service-account JSON', () => {
  const file = {
    type: 'service_account',
    project_id: 'my-firebase',
    private_key_id: 'abc123',
    private_key: privateKey,
    client_email: 'herald@my-firebase.iam.gserviceaccount.com',
    client_id: '1234567890',
    auth_uri: 'https://accounts.google.com/o/oauth2/auth',
    token_uri: 'https://oauth2.googleapis.com/token',
  };

  it('maps snake_case names to Herald names; Herald names win', () => {
    expect(normalizeFcmCredentials({ project_id: 'a', projectId: 'b' })).toEqual({ projectId: 'b' });
    expect(normalizeFcmCredentials({ client_email: 'x@y.z' })).toEqual({ clientEmail: 'x@y.z' });
  });

  it('is accepted as an object or as the JSON text of the file, extra fields dropped', () => {
    for (const input of [file, JSON.stringify(file)]) {
      expect(parseCredentials(fcmProvider as never, input)).toEqual({ success: true, credentials: { ...valid, privateKey: privateKey.trim() } });
    }
  });
});
