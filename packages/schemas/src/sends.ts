import { z } from 'zod';
import { rolloutBody } from './rollout';
import { jsonBytes } from './bytes';
import { audience } from './audiences';
import { customerUserId } from './devices';
import { uuid } from './ids';
import { pushOptionsShape } from './push-options';
import { deliverAt } from './settings';

const MAX_DATA_BYTES = 3072;
const MAX_VARIABLES_BYTES = 64 * 1024;
/** The variables of one personalised bulk together: the shared ones and every recipient's. */
export const MAX_REQUEST_VARIABLES_BYTES = 256 * 1024;

/** FCM refuses these data keys for the whole message; better a 400 now than a failure per device. */
const RESERVED_DATA_KEY = /^(from|notification|message_type|collapse_key)$|^(google|gcm)/i;

const sendData = z
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
  deliverAt: deliverAt.optional(),
  ignoreQuietHours: z
    .boolean({ error: 'ignoreQuietHours must be a boolean' })
    .optional()
    .describe("Deliver even inside the project's quiet hours (as `priority: \"high\"` does)"),
};

/** What a send to named users carries besides its recipients: the template, its inputs and the extras. */
const sendContent = {
  templateId,
  variables: variablesSchema.optional(),
  imageUrl: imageUrl.optional(),
  data: sendData.optional(),
  ...sendExtras,
};

export const sendBody = z.object({
  userId: customerUserId,
  ...sendContent,
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
    ...sendContent,
  })
  // Checked even when other fields are invalid (`when`), so that a missing userIds is reported beside
  // them as it always was; the body may then be anything, hence the guards.
  .superRefine(
    (body, ctx) => {
      if (!body || typeof body !== 'object') return;
      if (body.userIds !== undefined && body.recipients !== undefined) ctx.addIssue({ code: 'custom', path: ['recipients'], message: 'give either userIds or recipients, not both' });
      if (body.userIds === undefined && body.recipients === undefined) ctx.addIssue({ code: 'custom', path: ['userIds'], message: 'userIds is required (or recipients)' });
      if (!Array.isArray(body.recipients)) return;
      const variableBytes = body.recipients.reduce((sum, r) => sum + (r?.variables ? jsonBytes(r.variables) : 0), body.variables ? jsonBytes(body.variables) : 0);
      if (variableBytes > MAX_REQUEST_VARIABLES_BYTES) {
        ctx.addIssue({ code: 'custom', path: ['recipients'], message: `the variables of all recipients together (and the shared ones) must be at most ${MAX_REQUEST_VARIABLES_BYTES} bytes as JSON` });
      }
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

/** A broadcast's pace, at most (devices a minute). */
export const MAX_BROADCAST_RATE_PER_MINUTE = 1_000_000;

/** A broadcast: one template to every device of an audience (docs/audiences.md#send-to-an-audience). */
export const broadcastBody = z.object({
  templateId,
  audience: audience.describe('Who receives it: exactly one of `{segmentId}`, `{filter}` or `{all: true}`'),
  variables: variablesSchema.optional(),
  imageUrl: imageUrl.optional(),
  data: sendData.optional(),
  ratePerMinute: z
    .number({ error: 'ratePerMinute must be a number' })
    .int('ratePerMinute must be an integer')
    .min(1, 'ratePerMinute must be at least 1')
    .max(MAX_BROADCAST_RATE_PER_MINUTE, `ratePerMinute must be at most ${MAX_BROADCAST_RATE_PER_MINUTE}`)
    .optional()
    .describe("Devices a minute at most; the project's FCM quota paces it too"),
  rollout: rolloutBody.optional(),
  ...sendExtras,
});
