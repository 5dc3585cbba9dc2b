export * from './errors';
export * from './secrets';
export * from './crypto';
export * from './template';
export * from './queue';
// A push's delivery options are request fields (a send's, a template's defaults), so they are defined
// with the request schemas the dashboard shares; the worker and the providers read them from here.
export {
  androidOptionsSchema,
  apnsOptionsSchema,
  MAX_TTL_SECONDS,
  mergePushOptions,
  pushOptionsSchema,
  pushOptionsShape,
  readPushOptions,
  WEB_URGENCIES,
  webpushOptionsSchema,
  type AndroidOptions,
  type ApnsOptions,
  type PushOptions,
  type WebpushOptions,
} from '@herald/schemas';
export * from './webhooks';
export * from './push-readiness';
export * from './chunk';
export * from './storable-text';
export * from './push-data';
export * from './notification-status';
// Device attributes and audience filters are request fields too; the SQL compiler (packages/db) and
// the worker read them from here.
export {
  appVersionKey,
  canonicalLocale,
  filterProblems,
  isTimeZone,
  MAX_TAGS,
  normalizeTimeZone,
  TAG_FIELD_PREFIX,
  withinMs,
  type AudienceCondition,
  type AudienceFilter,
  type DeviceAttributesPatch,
  type FilterScalar,
  type RelativeTime,
  type TagValue,
} from '@herald/schemas';
export * from './local-time';
export * from './rollout';
