export { startFcmEmulator } from './emulator';
export type { EmulatorStats, FcmEmulator, FcmEmulatorOptions, ReceivedFilter, ReceivedMessage } from './emulator';
export type { Fault, FaultKind } from './faults';
export { GOOGLE_TOKEN_URL, JWT_BEARER_GRANT } from './oauth';
export type { GoogleServiceAccountJson, ServiceAccountInput } from './oauth';
