import type { PushMessage } from '../types';

/** The `message` of an FCM HTTP v1 send request, as far as Herald fills it. */
export interface FcmMessage {
  token: string;
  notification: { title: string; body: string; image?: string };
  data?: Record<string, string>;
  apns?: { payload: { aps: { 'mutable-content': 1 } }; fcm_options: { image: string } };
  webpush?: { notification: { image: string } };
}

export function toFcmMessage(push: PushMessage): FcmMessage {
  const { token, title, body, imageUrl, data, platform } = push;
  const message: FcmMessage = { token, notification: imageUrl ? { title, body, image: imageUrl } : { title, body } };
  if (data && Object.keys(data).length > 0) message.data = data;
  if (imageUrl) {
    // Android displays notification.image by itself. iOS downloads it in a notification service
    // extension, which only runs for mutable-content; web push takes it from its own notification options.
    // A device of unknown platform gets both blocks: FCM ignores the one that does not match the token.
    if (platform === 'ios' || platform === undefined) {
      message.apns = { payload: { aps: { 'mutable-content': 1 } }, fcm_options: { image: imageUrl } };
    }
    if (platform === 'web' || platform === undefined) message.webpush = { notification: { image: imageUrl } };
  }
  return message;
}
