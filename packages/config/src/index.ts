/**
 * Configuration is read from the environment once, at boot, and nowhere else (docs/operations.md#configuration).
 * Outside production a newcomer needs no env file: Postgres and Redis default to localhost and
 * secrets to development values, each with a warning. In production every secret is required.
 */

export { ConfigError, loadOrExit, type EncryptionKeys } from './shared';
export { loadApiConfig, type ApiConfig } from './api';
export { loadWorkerConfig, type WorkerConfig } from './worker';
export { loadMigrateConfig } from './migrate';
