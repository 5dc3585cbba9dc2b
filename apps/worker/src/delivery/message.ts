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

export function toPushMessage(n: RenderedNotification, token: string, platform: string): PushMessage {
  return {
    token,
    title: n.title,
    body: n.body,
    ...(n.imageUrl ? { imageUrl: n.imageUrl } : {}),
    ...(Object.keys(n.data).length ? { data: n.data } : {}),
    platform: platform === 'ios' || platform === 'web' ? platform : 'android',
    ...(n.options && Object.keys(n.options).length ? { options: n.options } : {}),
    ...(n.dataOnly ? { dataOnly: true } : {}),
  };
}
