import type { PushOptions } from '@herald/core';
import type { PushMessage } from '@herald/providers';

export { stringifyData } from '@herald/core';

export interface RenderedNotification {
  title: string;
  body: string;
  imageUrl?: string;
  data: Record<string, string>;
  /** The template's default options overlaid by the send's. */
  options?: PushOptions;
  dataOnly?: boolean;
  /** False when the project turned `deliveryIdInData` off: the message carries no `herald_delivery_id`. */
  deliveryIdInData?: boolean;
}

/**
 * The name a notification goes by on devices: its id's 32 hex digits (within Web Push's 32 base64url
 * characters for `Topic`). Every copy of one notification carries it as the Android tag, the
 * `apns-collapse-id` and the `Topic`, so that a repeat replaces the one shown instead of stacking.
 */
export function collapseIdOf(notificationId: string): string {
  return notificationId.replaceAll('-', '');
}

/**
 * One device's message (built field by field: this runs for every delivery). `deliveryId` travels in
 * `data` (`herald_delivery_id`), the same on every attempt, unless the project turned that off; the
 * collapse id, which makes a repeat replace the copy shown, is there either way.
 */
export function toPushMessage(n: RenderedNotification, token: string, platform: string, deliveryId: string, collapseId: string): PushMessage {
  const message: PushMessage = { token, title: n.title, body: n.body, platform: platform === 'ios' || platform === 'web' ? platform : 'android', collapseId };
  if (n.deliveryIdInData !== false) message.deliveryId = deliveryId;
  if (n.imageUrl) message.imageUrl = n.imageUrl;
  if (hasKeys(n.data)) message.data = n.data;
  if (n.options && hasKeys(n.options)) message.options = n.options;
  if (n.dataOnly) message.dataOnly = true;
  return message;
}

function hasKeys(o: object): boolean {
  for (const _ in o) return true;
  return false;
}
