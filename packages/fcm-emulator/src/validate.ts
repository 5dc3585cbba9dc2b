import { isRecord } from './oauth';
import { validatePlatformBlocks } from './platforms';
import { fcmErrors, type Reply } from './replies';

const MESSAGE_FIELDS = new Set(['name', 'data', 'notification', 'android', 'webpush', 'apns', 'fcm_options', 'token', 'topic', 'condition']);
const NOTIFICATION_FIELDS = new Set(['title', 'body', 'image']);
/** FCM rejects these data keys, and any starting with `google` or `gcm`. */
const RESERVED_DATA_KEYS = new Set(['from', 'notification', 'message_type']);
/** FCM's limit on a message's notification and data, keys included (an approximation of how FCM counts). */
const MAX_PAYLOAD_BYTES = 4096;

const unknownField = (name: string, at: string) =>
  fcmErrors.invalidArgument(`Invalid JSON payload received. Unknown name "${name}" at '${at}': Cannot find field.`, at);

/** The checks FCM makes on a send request that catch a client's mistakes; answers the error, or undefined when valid. */
export function validateSendRequest(request: unknown): Reply | undefined {
  if (!isRecord(request) || !isRecord(request.message)) {
    return fcmErrors.invalidArgument("Invalid JSON payload received. Expected an object with a 'message'.", 'message');
  }
  for (const key in request) {
    if (key !== 'message' && key !== 'validate_only') return unknownField(key, '');
  }
  const message = request.message;
  for (const key in message) {
    if (!MESSAGE_FIELDS.has(key)) return unknownField(key, 'message');
  }

  const targets = (message.token !== undefined ? 1 : 0) + (message.topic !== undefined ? 1 : 0) + (message.condition !== undefined ? 1 : 0);
  if (targets === 0) return fcmErrors.invalidArgument('Recipient of the message is not set.', 'message');
  if (targets > 1) return fcmErrors.invalidArgument('Exactly one of message.token, message.topic or message.condition must be set.', 'message');
  if (message.token !== undefined && (typeof message.token !== 'string' || message.token === '')) return fcmErrors.invalidToken();

  let payloadBytes = 0;
  const notification = message.notification;
  if (notification !== undefined) {
    if (!isRecord(notification)) return fcmErrors.invalidArgument("Invalid value at 'message.notification'.", 'message.notification');
    for (const key in notification) {
      if (!NOTIFICATION_FIELDS.has(key)) return unknownField(key, 'message.notification');
      const value = notification[key];
      if (typeof value !== 'string') {
        return fcmErrors.invalidArgument(`Invalid value at 'message.notification.${key}' (TYPE_STRING), ${JSON.stringify(value)}`, `message.notification.${key}`);
      }
      if (key !== 'image') payloadBytes += Buffer.byteLength(value);
    }
  }

  const data = message.data;
  if (data !== undefined) {
    if (!isRecord(data)) return fcmErrors.invalidArgument("Invalid value at 'message.data'.", 'message.data');
    let i = 0;
    for (const key in data) {
      const value = data[key];
      if (typeof value !== 'string') {
        return fcmErrors.invalidArgument(`Invalid value at 'message.data[${i}].value' (TYPE_STRING), ${JSON.stringify(value)}`, `message.data[${i}].value`);
      }
      const lower = key.toLowerCase();
      if (RESERVED_DATA_KEYS.has(lower) || lower.startsWith('google') || lower.startsWith('gcm')) {
        return fcmErrors.invalidArgument(`Invalid data payload key: ${key}`, 'message.data');
      }
      payloadBytes += Buffer.byteLength(key) + Buffer.byteLength(value);
      i++;
    }
  }
  if (payloadBytes > MAX_PAYLOAD_BYTES) return fcmErrors.invalidArgument('Message is too big', 'message');

  return validatePlatformBlocks(message);
}
