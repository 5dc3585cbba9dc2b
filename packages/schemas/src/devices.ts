import { z } from 'zod';
import { deviceAttributesPatch } from './device-attributes';

export const DEVICE_PLATFORMS = ['android', 'ios', 'web'] as const;
export const DEVICE_PROVIDERS = ['fcm'] as const;

/** The customer's own user id: any non-empty string, as they know it. */
export const customerUserId = z.string({ error: 'userId must be a string' }).trim().min(1, 'userId is required').max(255, 'userId is too long');

export const deviceToken = z
  .string({ error: 'deviceToken must be a string' })
  .trim()
  .min(1, 'deviceToken is required')
  .max(4096, 'deviceToken is too long')
  .regex(/^[\x21-\x7e]+$/, 'deviceToken must be printable ASCII without spaces');

export const registerDeviceBody = z.object({
  userId: customerUserId,
  deviceToken,
  provider: z.enum(DEVICE_PROVIDERS, { error: "provider must be 'fcm'" }),
  platform: z.enum(DEVICE_PLATFORMS, { error: 'platform must be one of android, ios, web' }),
  // Optional attributes (docs/audiences.md#1-device-attributes): tags merge into the stored ones.
  ...deviceAttributesPatch,
});

export const unregisterDeviceBody = z.object({
  deviceToken,
  provider: z.enum(DEVICE_PROVIDERS, { error: "provider must be 'fcm'" }).default('fcm'),
});
