import { generateKeyPairSync } from 'node:crypto';
import { parseServiceAccount } from './service-account';

/** A key made for this run: no private-key text is tracked. */
const PEM = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const file = {
  type: 'service_account',
  project_id: 'my-app-123',
  private_key_id: 'abc',
  private_key: PEM,
  client_email: 'firebase-adminsdk@my-app-123.iam.gserviceaccount.com',
  client_id: '1',
  token_uri: 'https://oauth2.googleapis.com/token',
};

describe('service-account import mapping', () => {
  it('maps project_id, client_email and private_key to the FCM config and keeps nothing else', () => {
    const r = parseServiceAccount(JSON.stringify(file, null, 2));
    expect(r).toEqual({ ok: true, name: 'FCM my-app-123', config: { projectId: 'my-app-123', clientEmail: file.client_email, privateKey: PEM } });
  });

  it('restores newlines of a key pasted with them escaped', () => {
    const r = parseServiceAccount(JSON.stringify({ ...file, private_key: PEM.replace(/\n/g, '\\n') }));
    expect(r.ok && r.config.privateKey).toBe(PEM);
  });

  it('explains what is wrong: not JSON, another kind of file, missing fields, a key that is not PEM', () => {
    expect(parseServiceAccount('{"project_id": ')).toEqual({ ok: false, error: expect.stringMatching(/not valid JSON/) });
    expect(parseServiceAccount('[1]')).toEqual({ ok: false, error: expect.stringMatching(/one JSON object/) });
    expect(parseServiceAccount(JSON.stringify({ ...file, type: 'authorized_user' }))).toEqual({ ok: false, error: expect.stringMatching(/"authorized_user" file/) });
    const { client_email: _e, private_key: _k, ...partial } = file;
    expect(parseServiceAccount(JSON.stringify(partial))).toEqual({ ok: false, error: 'The file has no client_email, private_key: is it a service-account key?' });
    expect(parseServiceAccount(JSON.stringify({ ...file, private_key: 'secret' }))).toEqual({ ok: false, error: expect.stringMatching(/not a PEM private key/) });
  });
});
