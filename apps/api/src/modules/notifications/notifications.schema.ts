import { z } from 'zod';
import { pushOptionsShape } from '@herald/core';
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

/** How far ahead a send may be scheduled. */
export const MAX_SCHEDULE_DAYS = 30;

/** Beyond the spec's fields, every one optional: FCM's delivery options, data-only, dry runs and scheduling. */
const sendExtras = {
  ...Object.fromEntries(Object.entries(pushOptionsShape).map(([k, v]) => [k, v.optional()])) as { [K in keyof typeof pushOptionsShape]: z.ZodOptional<(typeof pushOptionsShape)[K]> },
  dataOnly: z
    .boolean({ error: 'dataOnly must be a boolean' })
    .optional()
    .describe('Send no notification block: the rendered title and body travel in `data` (`title`, `body`), with `content-available` on iOS, for the app to handle in the background'),
  dryRun: z
    .boolean({ error: 'dryRun must be a boolean' })
    .optional()
    .describe("Validate every message with FCM (`validate_only`) without delivering it: deliveries end `validated` or with the token's error, and no device is removed"),
  sendAt: z.iso
    .datetime({ offset: true, error: 'sendAt must be an ISO 8601 date-time with an offset, e.g. 2026-12-01T09:00:00+01:00' })
    .optional()
    .describe(`Deliver at this time (at most ${MAX_SCHEDULE_DAYS} days ahead) instead of now; answered with status \`scheduled\``),
};

export const sendBody = z.object({
  userId: customerUserId,
  templateId,
  variables: variablesSchema.optional(),
  imageUrl: imageUrl.optional(),
  data: dataSchema.optional(),
  ...sendExtras,
});

export const MAX_BULK_USERS = 500;

const recipient = z.object(
  {
    userId: customerUserId,
    variables: variablesSchema.optional().describe("This recipient's variables, merged over the shared `variables`"),
  },
  { error: 'each recipient must be an object with a userId' },
);

export const sendBulkBody = z
  .object({
    userIds: z
      .array(customerUserId, { error: 'userIds must be an array of strings' })
      .min(1, 'userIds must not be empty')
      .max(MAX_BULK_USERS, `userIds must contain at most ${MAX_BULK_USERS} user ids`)
      .optional()
      .describe('The users to send to (required unless `recipients` is given)'),
    recipients: z
      .array(recipient, { error: 'recipients must be an array of { userId, variables }' })
      .min(1, 'recipients must not be empty')
      .max(MAX_BULK_USERS, `recipients must contain at most ${MAX_BULK_USERS} entries`)
      .optional()
      .describe('Personalised bulk, instead of `userIds`: each user with their own variables, merged over the shared `variables`'),
    templateId,
    variables: variablesSchema.optional(),
    imageUrl: imageUrl.optional(),
    data: dataSchema.optional(),
    ...sendExtras,
  })
  // Checked even when other fields are invalid (`when`), so that a missing userIds is reported beside
  // them as it always was; the body may then be anything, hence the guards.
  .superRefine(
    (body, ctx) => {
      if (!body || typeof body !== 'object') return;
      if (body.userIds !== undefined && body.recipients !== undefined) ctx.addIssue({ code: 'custom', path: ['recipients'], message: 'give either userIds or recipients, not both' });
      if (body.userIds === undefined && body.recipients === undefined) ctx.addIssue({ code: 'custom', path: ['userIds'], message: 'userIds is required (or recipients)' });
      if (!Array.isArray(body.recipients)) return;
      const seen = new Map<string, number>();
      body.recipients.forEach((r, i) => {
        if (typeof r?.userId !== 'string') return;
        const first = seen.get(r.userId);
        if (first !== undefined) ctx.addIssue({ code: 'custom', path: ['recipients', i, 'userId'], message: `duplicate userId (also recipients.${first})` });
        else seen.set(r.userId, i);
      });
    },
    { when: () => true },
  );

export const projectQuery = z.object({ projectId: uuid('projectId').optional() });

export const listQuery = z.object({ projectId: uuid('projectId').optional(), ...paginationQuery });

const idempotencyKey = z
  .string()
  .min(1)
  .max(255, 'Idempotency-Key must be at most 255 characters')
  .describe(
    'Any string up to 255 characters. The same key for the same project within 24 h answers the first response ' +
      '(same status, same `notificationId`) and sends nothing again, also under concurrent requests.',
  );

/** The headers of a send. */
export const sendHeaders = z.object({ 'Idempotency-Key': idempotencyKey.optional() });

export const STATUSES = ['queued', 'processing', 'completed', 'partially_failed', 'failed', 'scheduled', 'canceled'] as const;

export const acceptedResponse = z.object({
  notificationId: z.uuid(),
  status: z.enum(['queued', 'scheduled']).describe('`scheduled` for a send with `sendAt`'),
  sendAt: z.iso.datetime().optional().describe('When a scheduled send will be delivered'),
});
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
  sendAt: z.iso.datetime().optional().describe('When a scheduled send is (or was) due; absent for an immediate send'),
  dryRun: z.literal(true).optional().describe('Present for a dry run: `stats.sent` counts the messages FCM validated'),
  stats,
});

export const notificationResponse = notificationSummary.extend({
  deliveries: z.array(
    z.object({
      userId: z.string(),
      deviceId: z.uuid().nullable(),
      platform: z.string().nullable(),
      status: z.enum(['sent', 'failed', 'no_devices', 'validated']),
      providerConfigId: z.uuid().nullable(),
      providerMessageId: z.string().nullable(),
      error: z.string().nullable(),
    }),
  ),
});
