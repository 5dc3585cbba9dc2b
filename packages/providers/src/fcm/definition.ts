import type { z } from 'zod';
import type { ProviderDefinition } from '../definition';
import type { FcmCredentials } from '../types';
import { fcmCredentialsSchema, normalizeFcmCredentials } from './credentials';
import { createFcmProvider, type FcmProviderOptions } from './provider';

/** The FCM provider type, complete: its credentials, their public description and its client. */
export const fcmProvider: ProviderDefinition<FcmCredentials & Record<string, string>> = {
  provider: 'fcm',
  name: 'Firebase Cloud Messaging',
  fields: [
    { name: 'projectId', type: 'string', required: true, secret: false, description: 'ID of the Firebase project (project_id in the service-account JSON)' },
    {
      name: 'clientEmail',
      type: 'string',
      required: true,
      secret: false,
      description: 'E-mail address of the service account (client_email in the service-account JSON)',
    },
    {
      name: 'privateKey',
      type: 'string',
      required: true,
      secret: true,
      description:
        'Private key of the service account in PEM form, including the BEGIN/END lines (private_key in the service-account JSON). Stored encrypted and never returned.',
    },
  ],
  schema: fcmCredentialsSchema as z.ZodType<FcmCredentials & Record<string, string>>,
  normalize: normalizeFcmCredentials,
  create: (credentials, options) => createFcmProvider(credentials, options as FcmProviderOptions | undefined),
};
