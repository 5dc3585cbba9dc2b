/**
 * The API's request schemas that another program validates with too: the dashboard checks its forms
 * with them before it sends, and gets the messages the API would answer. zod only, no Node API.
 * The API's modules re-export what their routes use from their `<module>.schema.ts`.
 */
export * from './accounts';
export * from './app-version';
export * from './audience-filter';
export * from './audiences';
export * from './bytes';
export * from './device-attributes';
export * from './devices';
export * from './engagement';
export * from './ids';
export * from './projects';
export * from './push-config';
export * from './push-options';
export * from './sends';
export * from './rollout';
export * from './templates';
export * from './audit';
export * from './settings';
