import { z } from 'zod';
import { uuid } from '../../http/uuid';
import { paginationQuery } from '../../http/pagination';
import { customerUserId } from '../devices/devices.schema';

const MAX_DATA_BYTES = 3072;
const MAX_VARIABLES_BYTES = 64 * 1024;

/** FCM refuses these data keys for the whole message; better a 400 now than a failure per device. */
const RESERVED_DATA_KEY = /^(from|notification|message_type|collapse_key)$|^(google|gcm)/i;

const jsonBytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v ?? {}), 'utf8');

export const dataSchema = z
  .record(z.string().max(256, 'data keys are at most 256 characters'), z.unknown())
  .refine((d) => Object.keys(d).every((k) => !RESERVED_DATA_KEY.test(k)), 'data must not use keys reserved by FCM (from, notification, message_type, collapse_key, google*, gcm*)')
  .refine((d) => jsonBytes(d) <= MAX_DATA_BYTES, `data must be at most ${MAX_DATA_BYTES} bytes as JSON (FCM's whole message is limited to 4 KB)`);

const variablesSchema = z
  .record(z.string(), z.unknown(), { error: 'variables must be an object of name to value' })
  .refine((v) => jsonBytes(v) <= MAX_VARIABLES_BYTES, `variables must be at most ${MAX_VARIABLES_BYTES} bytes as JSON`);

const imageUrl = z.url({ protocol: /^https?$/, error: 'imageUrl must be an http(s) URL' }).max(2048, 'imageUrl is too long');

const templateId = uuid('templateId');

export const sendBody = z.object({
  userId: customerUserId,
  templateId,
  variables: variablesSchema.optional(),
  imageUrl: imageUrl.optional(),
  data: dataSchema.optional(),
});

export const MAX_BULK_USERS = 500;

export const sendBulkBody = z.object({
  userIds: z
    .array(customerUserId, { error: 'userIds must be an array of strings' })
    .min(1, 'userIds must not be empty')
    .max(MAX_BULK_USERS, `userIds must contain at most ${MAX_BULK_USERS} user ids`),
  templateId,
  variables: variablesSchema.optional(),
  imageUrl: imageUrl.optional(),
  data: dataSchema.optional(),
});

export const projectQuery = z.object({ projectId: uuid('projectId').optional() });

export const listQuery = z.object({ projectId: uuid('projectId').optional(), ...paginationQuery });

export const idempotencyKey = z.string().min(1).max(255, 'Idempotency-Key must be at most 255 characters');

export const STATUSES = ['queued', 'processing', 'completed', 'partially_failed', 'failed'] as const;

export const acceptedResponse = z.object({ notificationId: z.uuid(), status: z.literal('queued') });
export const acceptedBulkResponse = acceptedResponse.extend({ recipients: z.number().int() });

const stats = z.object({
  recipients: z.number().int(),
  devices: z.number().int(),
  sent: z.number().int(),
  failed: z.number().int(),
  invalidTokensRemoved: z.number().int(),
});

export const notificationSummary = z.object({
  id: z.uuid(),
  status: z.enum(STATUSES),
  templateId: z.uuid(),
  createdAt: z.iso.datetime(),
  completedAt: z.iso.datetime().nullable(),
  stats,
});

export const notificationResponse = notificationSummary.extend({
  deliveries: z.array(
    z.object({
      userId: z.string(),
      deviceId: z.uuid().nullable(),
      platform: z.string().nullable(),
      status: z.enum(['sent', 'failed', 'no_devices']),
      providerConfigId: z.uuid().nullable(),
      providerMessageId: z.string().nullable(),
      error: z.string().nullable(),
    }),
  ),
});
