import type { PushMessage } from '@herald/providers';

/** FCM data values must be strings: strings stay as they are, anything else is JSON-encoded. */
export function stringifyData(...layers: (Record<string, unknown> | null | undefined)[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const layer of layers) {
    if (!layer) continue;
    for (const [key, value] of Object.entries(layer)) {
      if (value === undefined) continue;
      out[key] = typeof value === 'string' ? value : JSON.stringify(value);
    }
  }
  return out;
}

export interface RenderedNotification {
  title: string;
  body: string;
  imageUrl?: string;
  data: Record<string, string>;
}

export function toPushMessage(n: RenderedNotification, token: string, platform: string): PushMessage {
  return {
    token,
    title: n.title,
    body: n.body,
    ...(n.imageUrl ? { imageUrl: n.imageUrl } : {}),
    ...(Object.keys(n.data).length ? { data: n.data } : {}),
    platform: platform === 'ios' || platform === 'web' ? platform : 'android',
  };
}
