import { generateKeyPairSync } from 'node:crypto';
import { unique } from './harness';

/** A real RSA service-account key, as Google issues them (PKCS#8 PEM). */
export function rsaKey() {
  return generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
}

export interface ServiceAccount {
  projectId: string;
  clientEmail: string;
  privateKey: string;
  publicKey: string;
}

/** A service account of a Firebase project, with the public key the FCM emulator checks its tokens with. */
export function serviceAccount(projectId = unique('fb')): ServiceAccount {
  const { privateKey, publicKey } = rsaKey();
  return { projectId, clientEmail: `herald@${projectId}.iam.gserviceaccount.com`, privateKey, publicKey };
}

/** Every base64 line of a PEM body: none of them may appear anywhere outside the sealed envelope. */
export const keyMaterial = (pem: string) => pem.split('\n').filter((line) => line && !line.startsWith('-----'));

export function fcmConfig(privateKey: string, overrides: Record<string, unknown> = {}) {
  return { projectId: unique('firebase'), clientEmail: `${unique('herald')}@firebase.iam.gserviceaccount.com`, privateKey, ...overrides };
}

export function providerBody(privateKey: string, overrides: Record<string, unknown> = {}) {
  return { provider: 'fcm', name: unique('FCM'), priority: 1, config: fcmConfig(privateKey), ...overrides };
}

/** The JSON file the Firebase console lets you download for a service account. */
export function serviceAccountFile(privateKey: string) {
  return {
    type: 'service_account',
    project_id: unique('firebase'),
    private_key_id: 'f1e2d3c4b5a6',
    private_key: privateKey,
    client_email: `${unique('herald')}@firebase.iam.gserviceaccount.com`,
    client_id: '109876543210987654321',
    auth_uri: 'https://accounts.google.com/o/oauth2/auth',
    token_uri: 'https://oauth2.googleapis.com/token',
    auth_provider_x509_cert_url: 'https://www.googleapis.com/oauth2/v1/certs',
    client_x509_cert_url: 'https://www.googleapis.com/robot/v1/metadata/x509/herald',
    universe_domain: 'googleapis.com',
  };
}
