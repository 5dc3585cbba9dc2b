import { fcmProvider } from '../fcm-credentials';
import { createFcmProvider, type FcmProviderOptions } from './provider';

// registry.ts stays free of clients; the FCM type gets its client where the client lives.
fcmProvider.create = (credentials, options) => createFcmProvider(credentials, options as FcmProviderOptions | undefined);
