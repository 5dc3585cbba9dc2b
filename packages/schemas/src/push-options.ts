import { z } from 'zod';
import { analyticsLabel } from './engagement';

/**
 * How a push is delivered, beyond its text: FCM's delivery options and the per-platform display
 * options of its HTTP v1 API, in Herald's own names. A send may carry them, a template may hold them
 * as defaults, and a send's value wins field by field (`mergePushOptions`). The FCM client maps them
 * onto FCM's `android`, `apns` and `webpush` blocks (packages/providers/src/fcm/message.ts).
 */

/** FCM keeps an undeliverable message at most 28 days; 0 means "now or never". */
export const MAX_TTL_SECONDS = 2_419_200;

const label = (field: string, max = 256) => z.string({ error: `${field} must be a string` }).min(1, `${field} must not be empty`).max(max, `${field} must be at most ${max} characters`);

export const androidOptionsSchema = z
  .object({
    channelId: label('android.channelId').describe('Android notification channel (Android 8+); the app must have created it'),
    sound: label('android.sound').describe('Sound to play: `default`, or a sound resource of the app'),
    tag: label('android.tag').describe('A notification with the same tag replaces the earlier one in the drawer'),
    clickAction: label('android.clickAction').describe('Intent action started when the user taps the notification'),
    color: z
      .string({ error: 'android.color must be a string' })
      .regex(/^#[0-9A-Fa-f]{6}$/, 'android.color must be a #rrggbb colour')
      .describe('Icon colour, `#rrggbb`'),
    icon: label('android.icon').describe('Drawable resource of the small icon'),
  })
  .partial();

export const apnsOptionsSchema = z
  .object({
    sound: label('apns.sound').describe('Sound to play: `default`, or a sound file of the app bundle'),
    badge: z
      .number({ error: 'apns.badge must be an integer' })
      .int('apns.badge must be an integer')
      .min(0, 'apns.badge must be at least 0')
      .max(99_999, 'apns.badge must be at most 99999')
      .describe('Number on the app icon (0 clears it)'),
    category: label('apns.category').describe('Notification category (its actions), as registered by the app'),
    threadId: label('apns.threadId').describe('Groups notifications into one thread'),
    contentAvailable: z.boolean({ error: 'apns.contentAvailable must be a boolean' }).describe('Wake the app in the background (`content-available: 1`)'),
    mutableContent: z.boolean({ error: 'apns.mutableContent must be a boolean' }).describe("Let the app's notification service extension change the notification (`mutable-content: 1`)"),
  })
  .partial();

export const WEB_URGENCIES = ['very-low', 'low', 'normal', 'high'] as const;

export const webpushOptionsSchema = z
  .object({
    link: z
      .url({ protocol: /^https$/, error: 'webpush.link must be an https URL' })
      .max(2048, 'webpush.link must be at most 2048 characters')
      .describe('Page opened when the user clicks the notification (https only)'),
    urgency: z.enum(WEB_URGENCIES, { error: `webpush.urgency must be one of ${WEB_URGENCIES.join(', ')}` }).describe('Web Push `Urgency` header; overrides the one `priority` implies'),
  })
  .partial();

export const pushOptionsShape = {
  priority: z
    .enum(['high', 'normal'], { error: 'priority must be high or normal' })
    .describe('Delivery priority: Android `priority`, APNs `apns-priority` 10 / 5, Web Push `Urgency` high / normal'),
  ttl: z
    .number({ error: 'ttl must be an integer' })
    .int('ttl must be an integer')
    .min(0, 'ttl must be at least 0')
    .max(MAX_TTL_SECONDS, `ttl must be at most ${MAX_TTL_SECONDS} seconds (28 days)`)
    .describe('Seconds FCM keeps the message while the device is offline (0: deliver now or drop): Android `ttl`, APNs `apns-expiration`, Web Push `TTL`'),
  collapseKey: z
    .string({ error: 'collapseKey must be a string' })
    .regex(/^[A-Za-z0-9_-]{1,32}$/, 'collapseKey must be 1 to 32 letters, digits, "-" or "_"')
    .describe('Messages with the same key replace each other while undelivered: Android `collapse_key`, APNs `apns-collapse-id`, Web Push `Topic`'),
  android: androidOptionsSchema.describe('Options for Android devices (FCM `android.notification`)'),
  apns: apnsOptionsSchema.describe('Options for iOS devices (APNs `aps` dictionary)'),
  webpush: webpushOptionsSchema.describe('Options for web devices'),
  analyticsLabel: analyticsLabel.describe(
    "FCM's `fcm_options.analytics_label`: groups messages in FCM's delivery reports, and Herald's daily series per label (`GET /push/analytics-labels/{label}/engagement`)",
  ),
};

/** Every option optional; unknown fields are ignored, as everywhere in the API. */
export const pushOptionsSchema = z.object(pushOptionsShape).partial();

export type AndroidOptions = z.infer<typeof androidOptionsSchema>;
export type ApnsOptions = z.infer<typeof apnsOptionsSchema>;
export type WebpushOptions = z.infer<typeof webpushOptionsSchema>;
export type PushOptions = z.infer<typeof pushOptionsSchema>;

const PLATFORM_BLOCKS = ['android', 'apns', 'webpush'] as const;

/** Drops undefined fields and empty platform blocks, so that stored options are as small as they can be. */
function compact(options: PushOptions): PushOptions {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined) continue;
    if ((PLATFORM_BLOCKS as readonly string[]).includes(key)) {
      const block = Object.fromEntries(Object.entries(value as object).filter(([, v]) => v !== undefined));
      if (Object.keys(block).length) out[key] = block;
    } else out[key] = value;
  }
  return out as PushOptions;
}

/**
 * A template's defaults overlaid by a send's options: the send wins field by field, inside the
 * platform blocks too (a send's `android.sound` keeps the template's `android.channelId`).
 */
export function mergePushOptions(...layers: (PushOptions | null | undefined)[]): PushOptions {
  const out: Record<string, unknown> = {};
  for (const layer of layers) {
    if (!layer) continue;
    for (const [key, value] of Object.entries(compact(layer))) {
      out[key] = (PLATFORM_BLOCKS as readonly string[]).includes(key) ? { ...(out[key] as object | undefined), ...(value as object) } : value;
    }
  }
  return out as PushOptions;
}

/** Stored options (a JSON column) read back; anything unreadable counts as no options. */
export function readPushOptions(stored: unknown): PushOptions {
  const parsed = pushOptionsSchema.safeParse(stored ?? {});
  return parsed.success ? compact(parsed.data) : {};
}
