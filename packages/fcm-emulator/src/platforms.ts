import { isRecord } from './oauth';
import { fcmErrors, type Reply } from './replies';

/**
 * FCM's checks on a message's `android`, `apns` and `webpush` blocks (HTTP v1 reference:
 * AndroidConfig, AndroidNotification, ApnsConfig, WebpushConfig), as far as a client can get them
 * wrong: unknown names, wrong types, and the values FCM, APNs and Web Push refuse. FCM's JSON parser
 * takes a field in snake_case or lowerCamelCase; both are accepted here too.
 */

type Check = (value: unknown, at: string) => Reply | undefined;

const invalid = (at: string, type: string, value: unknown) => fcmErrors.invalidArgument(`Invalid value at '${at}' (${type}), ${JSON.stringify(value)}`, at);
const unknownField = (name: string, at: string) =>
  fcmErrors.invalidArgument(`Invalid JSON payload received. Unknown name "${name}" at '${at}': Cannot find field.`, at);

const string: Check = (v, at) => (typeof v === 'string' ? undefined : invalid(at, 'TYPE_STRING', v));
const bool: Check = (v, at) => (typeof v === 'boolean' ? undefined : invalid(at, 'TYPE_BOOL', v));
const int: Check = (v, at) => (Number.isInteger(v) ? undefined : invalid(at, 'TYPE_INT32', v));
const anyObject: Check = (v, at) => (isRecord(v) ? undefined : invalid(at, 'type.googleapis.com/google.protobuf.Struct', v));
const strings: Check = (v, at) => (Array.isArray(v) && v.every((s) => typeof s === 'string') ? undefined : invalid(at, 'TYPE_STRING', v));
const stringMap: Check = (v, at) => {
  if (!isRecord(v)) return invalid(at, 'TYPE_MESSAGE', v);
  for (const [k, value] of Object.entries(v)) if (typeof value !== 'string') return invalid(`${at}[${k}]`, 'TYPE_STRING', value);
  return undefined;
};
const oneOf =
  (values: string[], caseInsensitive = false): Check =>
  (v, at) =>
    typeof v === 'string' && values.includes(caseInsensitive ? v.toLowerCase() : v) ? undefined : invalid(at, 'TYPE_ENUM', v);
const all =
  (...checks: Check[]): Check =>
  (v, at) => {
    for (const check of checks) {
      const reply = check(v, at);
      if (reply) return reply;
    }
    return undefined;
  };
const rule = (test: (v: string) => boolean, message: (v: string) => string): Check =>
  all(string, (v, at) => (test(v as string) ? undefined : fcmErrors.invalidArgument(message(v as string), at)));

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** An object whose fields are each checked by their own rule; unknown names are refused. */
const fields =
  (shape: Record<string, Check>): Check =>
  (v, at) => {
    if (!isRecord(v)) return invalid(at, 'TYPE_MESSAGE', v);
    for (const [name, value] of Object.entries(v)) {
      const check = shape[snake(name)];
      if (!check) return unknownField(name, at);
      const reply = check(value, `${at}.${name}`);
      if (reply) return reply;
    }
    return undefined;
  };

/** A protobuf Duration in JSON: seconds with up to nine decimals and an `s`. FCM keeps a message at most 28 days. */
const ttl: Check = (v, at) => {
  const m = typeof v === 'string' ? /^(\d+)(\.\d{1,9})?s$/.exec(v) : null;
  if (!m) return invalid(at, 'type.googleapis.com/google.protobuf.Duration', v);
  if (Number(m[1]) > 2_419_200) return fcmErrors.invalidArgument('TTL must be at most 2419200 seconds (4 weeks)', at);
  return undefined;
};

const https = rule(
  (v) => {
    try {
      return new URL(v).protocol === 'https:';
    } catch {
      return false;
    }
  },
  (v) => `HTTPS is required for the link: ${v}`,
);

const androidNotification = fields({
  title: string,
  body: string,
  icon: string,
  color: rule((v) => /^#[0-9a-fA-F]{6}$/.test(v), (v) => `Invalid color format: ${v}. The color must be expressed in #rrggbb format.`),
  sound: string,
  tag: string,
  click_action: string,
  body_loc_key: string,
  body_loc_args: strings,
  title_loc_key: string,
  title_loc_args: strings,
  channel_id: string,
  ticker: string,
  sticky: bool,
  event_time: string,
  local_only: bool,
  notification_priority: oneOf(['PRIORITY_UNSPECIFIED', 'PRIORITY_MIN', 'PRIORITY_LOW', 'PRIORITY_DEFAULT', 'PRIORITY_HIGH', 'PRIORITY_MAX']),
  default_sound: bool,
  default_vibrate_timings: bool,
  default_light_settings: bool,
  vibrate_timings: strings,
  visibility: oneOf(['VISIBILITY_UNSPECIFIED', 'PRIVATE', 'PUBLIC', 'SECRET']),
  notification_count: int,
  light_settings: anyObject,
  image: string,
  bypass_proxy_notification: bool,
  proxy: oneOf(['PROXY_UNSPECIFIED', 'ALLOW', 'DENY', 'IF_PRIORITY_LOWERED']),
});

const android = fields({
  collapse_key: string,
  // The reference names the enum NORMAL / HIGH; Google's guides write it in lower case.
  priority: oneOf(['normal', 'high'], true),
  ttl,
  restricted_package_name: string,
  data: stringMap,
  notification: androidNotification,
  fcm_options: fields({ analytics_label: string }),
  direct_boot_ok: bool,
  bandwidth_constrained_ok: bool,
  restricted_satellite_ok: bool,
});

/** APNs request headers FCM passes on (Apple's "Sending notification requests to APNs"). */
const APNS_HEADERS: Record<string, (v: string) => boolean> = {
  'apns-priority': (v) => ['1', '5', '10'].includes(v),
  'apns-expiration': (v) => /^\d+$/.test(v),
  'apns-collapse-id': (v) => Buffer.byteLength(v) <= 64,
  'apns-push-type': (v) => ['alert', 'background', 'location', 'voip', 'complication', 'fileprovider', 'mdm', 'liveactivity', 'pushtotalk'].includes(v),
  'apns-topic': () => true,
  'apns-id': (v) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v),
};

const apnsHeaders: Check = (v, at) => {
  const reply = stringMap(v, at);
  if (reply) return reply;
  for (const [name, value] of Object.entries(v as Record<string, string>)) {
    const valid = APNS_HEADERS[name.toLowerCase()];
    if (valid && !valid(value)) return fcmErrors.invalidArgument(`Invalid APNs header ${name}: ${value}`, `${at}.${name}`);
  }
  return undefined;
};

const aps = (v: unknown, at: string) => {
  if (!isRecord(v)) return invalid(at, 'type.googleapis.com/google.protobuf.Struct', v);
  const numeric = { badge: 'a number', 'content-available': '1', 'mutable-content': '1' } as const;
  for (const [key, expected] of Object.entries(numeric)) {
    const value = v[key];
    if (value === undefined) continue;
    const ok = key === 'badge' ? Number.isInteger(value) && (value as number) >= 0 : value === 1 || value === 0;
    if (!ok) return fcmErrors.invalidArgument(`Invalid value for aps.${key}: ${JSON.stringify(value)} (expected ${expected})`, `${at}.${key}`);
  }
  for (const key of ['category', 'thread-id']) {
    if (v[key] !== undefined && typeof v[key] !== 'string') return invalid(`${at}.${key}`, 'TYPE_STRING', v[key]);
  }
  if (v.sound !== undefined && typeof v.sound !== 'string' && !isRecord(v.sound)) return invalid(`${at}.sound`, 'TYPE_STRING', v.sound);
  return undefined;
};

const apnsFields = fields({
  headers: apnsHeaders,
  payload: (v, at) => anyObject(v, at) ?? ((v as Record<string, unknown>).aps === undefined ? undefined : aps((v as Record<string, unknown>).aps, `${at}.aps`)),
  fcm_options: fields({ analytics_label: string, image: string }),
  live_activity_token: string,
});

const apns: Check = (v, at) => {
  const reply = apnsFields(v, at);
  if (reply) return reply;
  // Google: a data message to an Apple device must have priority 5; FCM rejects one with 10.
  const headers = Object.fromEntries(Object.entries(((v as Record<string, unknown>).headers ?? {}) as Record<string, string>).map(([k, h]) => [k.toLowerCase(), h]));
  if (headers['apns-push-type'] === 'background' && headers['apns-priority'] === '10') {
    return fcmErrors.invalidArgument('A background notification to an Apple device must have apns-priority 5', `${at}.headers`);
  }
  return undefined;
};

/** Web Push request headers (RFC 8030): TTL in seconds, Urgency, Topic of at most 32 URL-safe base64 characters. */
const WEB_HEADERS: Record<string, (v: string) => boolean> = {
  ttl: (v) => /^\d+$/.test(v),
  urgency: (v) => ['very-low', 'low', 'normal', 'high'].includes(v),
  topic: (v) => /^[A-Za-z0-9_-]{1,32}$/.test(v),
};

const webpushHeaders: Check = (v, at) => {
  const reply = stringMap(v, at);
  if (reply) return reply;
  for (const [name, value] of Object.entries(v as Record<string, string>)) {
    const valid = WEB_HEADERS[name.toLowerCase()];
    if (valid && !valid(value)) return fcmErrors.invalidArgument(`Invalid Web Push header ${name}: ${value}`, `${at}.${name}`);
  }
  return undefined;
};

const webpush = fields({
  headers: webpushHeaders,
  data: stringMap,
  notification: anyObject,
  fcm_options: fields({ link: https, analytics_label: string }),
});

const PLATFORMS: Record<string, Check> = { android, apns, webpush, fcm_options: fields({ analytics_label: string }) };

/** The first problem of the message's platform blocks, or undefined. */
export function validatePlatformBlocks(message: Record<string, unknown>): Reply | undefined {
  for (const [name, check] of Object.entries(PLATFORMS)) {
    if (message[name] === undefined) continue;
    const reply = check(message[name], `message.${name}`);
    if (reply) return reply;
  }
  return undefined;
}
