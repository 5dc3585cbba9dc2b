import { generateKeyPairSync } from 'node:crypto';
import { z } from 'zod';
import {
  createPushProvider,
  describeProvider,
  describeProviders,
  getProviderDefinition,
  maskCredentials,
  mergeCredentials,
  parseCredentials,
  providerTypes,
  secretFieldNames,
  SECRET_MASK,
  splitCredentials,
} from './registry';

const { privateKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});
const fcm = getProviderDefinition('fcm')!;
const stored = { projectId: 'my-firebase', clientEmail: 'herald@my-firebase.iam.gserviceaccount.com', privateKey: privateKey.trim() };

describe('provider registry', () => {
  it('knows fcm and nothing else yet', () => {
    expect(providerTypes()).toEqual(['fcm']);
    expect(getProviderDefinition('apns')).toBeUndefined();
    expect(getProviderDefinition('__proto__')).toBeUndefined();
  });

  it('describes fcm with its fields, marking the private key secret', () => {
    expect(describeProviders()).toEqual([describeProvider(fcm)]);
    expect(describeProvider(fcm)).toEqual({
      provider: 'fcm',
      name: 'Firebase Cloud Messaging',
      fields: [
        { name: 'projectId', type: 'string', required: true, secret: false, description: expect.any(String) },
        { name: 'clientEmail', type: 'string', required: true, secret: false, description: expect.any(String) },
        { name: 'privateKey', type: 'string', required: true, secret: true, description: expect.any(String) },
      ],
    });
    expect(secretFieldNames(fcm)).toEqual(['privateKey']);
  });

  it("declares exactly the fields its schema validates, for every provider", () => {
    for (const type of providerTypes()) {
      const def = getProviderDefinition(type)!;
      expect(def.schema).toBeInstanceOf(z.ZodObject);
      expect(Object.keys((def.schema as z.ZodObject).shape).sort()).toEqual(def.fields.map((f) => f.name).sort());
    }
  });

  it('splits credentials into public config and secrets, and masks secrets for display', () => {
    const { config, secrets } = splitCredentials(fcm, stored);
    expect(config).toEqual({ projectId: stored.projectId, clientEmail: stored.clientEmail });
    expect(secrets).toEqual({ privateKey: stored.privateKey });
    expect(maskCredentials(fcm, config)).toEqual({ projectId: stored.projectId, clientEmail: stored.clientEmail, privateKey: SECRET_MASK });
  });

  it('refuses a config that is not an object', () => {
    for (const input of [null, 'a string', 42, ['x'], '{not json']) {
      const r = parseCredentials(fcm, input);
      expect(r.success).toBe(false);
    }
  });

  it('refuses a client without a registered factory clearly', () => {
    expect(() => createPushProvider('nope', {})).toThrow('Unknown provider type "nope"');
  });
});

describe('mergeCredentials', () => {
  it('keeps stored fields not sent, including the secret', () => {
    const r = mergeCredentials(fcm, () => stored, { clientEmail: 'other@my-firebase.iam.gserviceaccount.com' });
    expect(r).toEqual({ success: true, credentials: { ...stored, clientEmail: 'other@my-firebase.iam.gserviceaccount.com' } });
  });

  it('treats a masked secret sent back as "unchanged"', () => {
    const r = mergeCredentials(fcm, () => stored, { projectId: 'renamed', privateKey: SECRET_MASK });
    expect(r).toEqual({ success: true, credentials: { ...stored, projectId: 'renamed' } });
  });

  it('does not read the stored credentials when every field is replaced', () => {
    const stored = jest.fn(() => {
      throw new Error('must not be called');
    });
    const r = mergeCredentials(fcm, stored, { projectId: 'p', clientEmail: 'a@b.co', privateKey });
    expect(r.success).toBe(true);
    expect(stored).not.toHaveBeenCalled();
  });

  it('validates the merged result', () => {
    const r = mergeCredentials(fcm, () => stored, { privateKey: 'not a key' });
    expect(r).toEqual({ success: false, issues: [{ path: 'privateKey', message: expect.stringMatching(/private key in PEM form/) }] });
  });
});
