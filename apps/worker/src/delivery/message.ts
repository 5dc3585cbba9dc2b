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
}

/** One device's message (built field by field: this runs for every delivery). */
export function toPushMessage(n: RenderedNotification, token: string, platform: string): PushMessage {
  const message: PushMessage = { token, title: n.title, body: n.body, platform: platform === 'ios' || platform === 'web' ? platform : 'android' };
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
