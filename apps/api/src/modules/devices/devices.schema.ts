import { z } from 'zod';
import { deviceAttributesPatch, tagValue } from '@herald/core';
import { uuid } from '../../http/uuid';

export const PLATFORMS = ['android', 'ios', 'web'] as const;
export const PROVIDERS = ['fcm'] as const;

/** The customer's own user id: any non-empty string, as they know it. */
export const customerUserId = z.string({ error: 'userId must be a string' }).trim().min(1, 'userId is required').max(255, 'userId is too long');

export const deviceToken = z
  .string({ error: 'deviceToken must be a string' })
  .trim()
  .min(1, 'deviceToken is required')
  .max(4096, 'deviceToken is too long')
  .regex(/^[\x21-\x7e]+$/, 'deviceToken must be printable ASCII without spaces');

export const projectQuery = z.object({ projectId: uuid('projectId').optional() });

export const registerDeviceBody = z.object({
  userId: customerUserId,
  deviceToken,
  provider: z.enum(PROVIDERS, { error: "provider must be 'fcm'" }),
  platform: z.enum(PLATFORMS, { error: 'platform must be one of android, ios, web' }),
  // Optional attributes (docs/audiences.md#device-attributes): tags merge into the stored ones.
  ...deviceAttributesPatch,
});

export const unregisterDeviceBody = z.object({
  deviceToken,
  provider: z.enum(PROVIDERS, { error: "provider must be 'fcm'" }).default('fcm'),
});

export const deviceResponse = z.object({
  id: z.uuid(),
  userId: z.string(),
  deviceToken: z.string(),
  provider: z.enum(PROVIDERS),
  platform: z.enum(PLATFORMS),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
  lastSeenAt: z.iso.datetime(),
  tags: z.record(z.string(), tagValue),
  timezone: z.string().nullable(),
  locale: z.string().nullable(),
  appVersion: z.string().nullable(),
});

export const messageResponse = z.object({ message: z.string() });
