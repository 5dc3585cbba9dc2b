export { createFcmProvider, FcmProvider, FCM_ORIGIN } from './provider';
export type { FcmProviderOptions } from './provider';
export { toFcmMessage, fcmPayloadBytes, FCM_MAX_PAYLOAD_BYTES } from './message';
export type { FcmMessage } from './message';
export { toTokenResult, parseRetryAfter } from './results';
export { FCM_SCOPE, GOOGLE_TOKEN_URL } from './access-token';
export type { FcmLogger } from './logger';
export * from './credentials';
export { fcmProvider } from './definition';
