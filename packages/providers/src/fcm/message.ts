import type { PushOptions } from '@herald/core';
import { DELIVERY_ID_DATA_KEY, type PushMessage } from '../types';

/**
 * The `message` of an FCM HTTP v1 send request, as far as Herald fills it. Field names are those of
 * Google's guides (https://firebase.google.com/docs/cloud-messaging/customize-messages/…): FCM's
 * JSON parser takes snake_case, and APNs and Web Push headers are passed through as written.
 */
export interface FcmMessage {
  token: string;
  notification?: { title: string; body: string; image?: string };
  data?: Record<string, string>;
  /** FCM's delivery reports group messages by this label. */
  fcm_options?: { analytics_label: string };
  android?: {
    priority?: 'high' | 'normal';
    /** A protobuf Duration: seconds with an `s`, `"3600s"`. */
    ttl?: string;
    collapse_key?: string;
    notification?: { channel_id?: string; sound?: string; tag?: string; click_action?: string; color?: string; icon?: string };
  };
  apns?: {
    headers?: Record<string, string>;
    payload?: { aps: Record<string, string | number> };
    fcm_options?: { image: string };
  };
  webpush?: {
    headers?: Record<string, string>;
    notification?: { image: string };
    fcm_options?: { link: string };
  };
}

/** FCM refuses a message whose payload is over 4 KB. */
export const FCM_MAX_PAYLOAD_BYTES = 4096;

const APNS_PRIORITY = { high: '10', normal: '5' } as const;

const nonEmpty = <T extends object>(o: T): T | undefined => (Object.keys(o).length ? o : undefined);

/** Copies the defined values only (a JSON body never carries `undefined`). */
function defined<T extends Record<string, unknown>>(o: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out as { [K in keyof T]?: Exclude<T[K], undefined> };
}

/**
 * The FCM message for one device. `nowMs` is the send time: APNs takes a lifespan as an absolute
 * expiry (`apns-expiration`, UNIX seconds). Only the block of the device's platform is built; a
 * device of unknown platform gets every block (FCM ignores the ones that do not match the token).
 */
export function toFcmMessage(push: PushMessage, nowMs = Date.now()): FcmMessage {
  const { token, title, body, imageUrl, platform, dataOnly = false, deliveryId, collapseId } = push;
  const options: PushOptions = push.options ?? {};
  const message: FcmMessage = { token };
  // Data-only: no notification for the system to show; the app reads title and body from `data`.
  let data = dataOnly ? { ...push.data, title, body, ...(imageUrl ? { image: imageUrl } : {}) } : push.data;
  if (deliveryId !== undefined) data = { ...data, [DELIVERY_ID_DATA_KEY]: deliveryId };
  if (!dataOnly) message.notification = imageUrl ? { title, body, image: imageUrl } : { title, body };
  if (data && Object.keys(data).length > 0) message.data = data;
  if (options.analyticsLabel) message.fcm_options = { analytics_label: options.analyticsLabel };

  if (platform === 'android' || platform === undefined) {
    const android = androidBlock(options, dataOnly, collapseId);
    if (android) message.android = android;
  }
  if (platform === 'ios' || platform === undefined) {
    const apns = apnsBlock(options, dataOnly, imageUrl, nowMs, collapseId);
    if (apns) message.apns = apns;
  }
  if (platform === 'web' || platform === undefined) {
    const webpush = webpushBlock(options, dataOnly, imageUrl, collapseId);
    if (webpush) message.webpush = webpush;
  }
  return message;
}

function androidBlock(options: PushOptions, dataOnly: boolean, collapseId: string | undefined): FcmMessage['android'] {
  const a = options.android ?? {};
  // Display options mean nothing without a notification.
  const notification = dataOnly
    ? undefined
    : nonEmpty(defined({ channel_id: a.channelId, sound: a.sound, tag: a.tag ?? collapseId, click_action: a.clickAction, color: a.color, icon: a.icon }));
  return nonEmpty(
    defined({
      priority: options.priority,
      ttl: options.ttl === undefined ? undefined : `${options.ttl}s`,
      collapse_key: options.collapseKey,
      notification,
    }),
  );
}

function apnsBlock(options: PushOptions, dataOnly: boolean, imageUrl: string | undefined, nowMs: number, collapseId: string | undefined): FcmMessage['apns'] {
  const a = options.apns ?? {};
  const headers: Record<string, string> = defined({
    // Google: a data message to an Apple device must have priority 5; FCM rejects 10.
    'apns-priority': dataOnly ? '5' : options.priority && APNS_PRIORITY[options.priority],
    // APNs: 0 means "deliver once, do not store"; otherwise the UNIX time after which it is dropped.
    'apns-expiration': options.ttl === undefined ? undefined : options.ttl === 0 ? '0' : String(Math.floor(nowMs / 1000) + options.ttl),
    'apns-collapse-id': options.collapseKey ?? collapseId,
  });
  // APNs wants the push type to match the payload: a background push carries content-available only.
  if (dataOnly || Object.keys(headers).length) headers['apns-push-type'] = dataOnly ? 'background' : 'alert';

  // A background push may not alert, sound or badge (Apple), so the display options are left out.
  const aps = dataOnly
    ? { 'content-available': 1 }
    : defined({
        sound: a.sound,
        badge: a.badge,
        category: a.category,
        'thread-id': a.threadId,
        'content-available': a.contentAvailable ? 1 : undefined,
        // iOS downloads an image in a notification service extension, which only runs for mutable-content.
        'mutable-content': a.mutableContent || imageUrl ? 1 : undefined,
      });
  return nonEmpty(
    defined({
      headers: nonEmpty(headers),
      payload: nonEmpty(aps) && { aps: aps as Record<string, string | number> },
      fcm_options: imageUrl && !dataOnly ? { image: imageUrl } : undefined,
    }),
  );
}

function webpushBlock(options: PushOptions, dataOnly: boolean, imageUrl: string | undefined, collapseId: string | undefined): FcmMessage['webpush'] {
  const w = options.webpush ?? {};
  const headers = defined({
    Urgency: w.urgency ?? options.priority,
    TTL: options.ttl === undefined ? undefined : String(options.ttl),
    Topic: options.collapseKey ?? collapseId,
  });
  return nonEmpty(
    defined({
      headers: nonEmpty(headers),
      // Web push shows an image from its own notification options.
      notification: imageUrl && !dataOnly ? { image: imageUrl } : undefined,
      fcm_options: w.link && !dataOnly ? { link: w.link } : undefined,
    }),
  );
}

/**
 * The size of what a device receives of a message, as Herald holds it to FCM's 4 KB: the JSON of its
 * notification, data and platform payloads (headers and the token are not payload). The JSON's own
 * quotes and braces make it a little stricter than FCM's count, never looser.
 */
export function fcmPayloadBytes(message: FcmMessage): number {
  return Buffer.byteLength(
    JSON.stringify({
      notification: message.notification,
      data: message.data,
      android: message.android?.notification,
      apns: message.apns?.payload,
      webpush: message.webpush?.notification,
    }),
    'utf8',
  );
}
