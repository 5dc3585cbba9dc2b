import { z } from 'zod';
import { NOTIFICATION_STATUSES, notificationStats, type PushOptions } from '@herald/core';
import { rolloutView, uuid } from '@herald/schemas';
import { audienceCountResponse } from '../audiences/audiences.schema';
import { engagementFunnel } from '../engagement/engagement.schema';
import { paginationQuery } from '../../http/pagination';

// The request bodies, which the dashboard validates with too, are defined in @herald/schemas.
export { broadcastBody, MAX_SCHEDULE_DAYS, sendBody, sendBulkBody } from '@herald/schemas';

export const projectQuery = z.object({ projectId: uuid('projectId').optional() });

/** A broadcast's deliveries come a page at a time (any notification's, when asked). */
export const MAX_DELIVERIES_PAGE = 1000;
export const DEFAULT_BROADCAST_DELIVERIES = 100;

export const getQuery = z.object({
  projectId: uuid('projectId').optional(),
  deliveriesLimit: z.coerce
    .number({ error: 'deliveriesLimit must be an integer' })
    .int('deliveriesLimit must be an integer')
    .min(1, 'deliveriesLimit must be at least 1')
    .max(MAX_DELIVERIES_PAGE, `deliveriesLimit must be at most ${MAX_DELIVERIES_PAGE}`)
    .optional()
    .describe(`Deliveries per page, in device id order (default for a broadcast: ${DEFAULT_BROADCAST_DELIVERIES}; for any other send, all of them unless given)`),
  deliveriesAfter: uuid('deliveriesAfter').optional().describe('The page after this device id: `nextDeliveriesAfter` of the previous page'),
});

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

export const acceptedResponse = z.object({
  notificationId: z.uuid(),
  status: z.enum(['queued', 'scheduled']).describe('`scheduled` for a send with `sendAt`'),
  sendAt: z.iso.datetime().optional().describe('When a scheduled send will be delivered'),
});
export const acceptedBulkResponse = acceptedResponse.extend({ recipients: z.number().int() });
export const acceptedBroadcastResponse = acceptedResponse.extend({
  audience: z
    .object({ devices: z.number().int(), users: z.number().int(), byPlatform: z.object({ android: z.number().int(), ios: z.number().int(), web: z.number().int() }) })
    .optional()
    .describe('A dry run only: the devices, users and devices per platform the audience holds now'),
  deliveryHours: audienceCountResponse.shape.deliveryHours.describe('A dry run with `deliverAt` only: how many devices it would reach in each hour (UTC), as `POST /push/audience/count` answers'),
});

const stats = notificationStats.extend({
  held: z.number().int().optional().describe('A local-time or quiet-hours send: deliveries held for their local time or until quiet hours end (counted in `devices`, not yet sent)'),
  defaultZoneDevices: z.number().int().optional().describe("Devices whose delivery time was computed in the project's `defaultTimezone`, having no `timezone` of their own"),
});

export const notificationSummary = z.object({
  id: z.uuid(),
  status: z.enum(NOTIFICATION_STATUSES),
  templateId: z.uuid(),
  createdAt: z.iso.datetime(),
  completedAt: z.iso.datetime().nullable(),
  sendAt: z.iso.datetime().optional().describe('When a scheduled send is (or was) due; absent for an immediate send'),
  dryRun: z.literal(true).optional().describe('Present for a dry run: `stats.sent` counts the messages FCM validated'),
  deliverAt: z.object({ localTime: z.string() }).optional().describe('A local-time send: each device at this time in its own zone'),
  stats,
  audience: z.record(z.string(), z.unknown()).optional().describe('A broadcast only: its audience as sent (`{segmentId, filter}`, `{filter}` or `{all: true}`)'),
  progress: z
    .object({
      planned: z.number().int().describe('Devices of the audience planned so far'),
      sent: z.number().int(),
      failed: z.number().int(),
      pending: z.number().int().describe('Planned and not yet sent or failed'),
      fannedOut: z.boolean().describe('Every page of the audience is planned'),
    })
    .optional()
    .describe('A broadcast only: how far its fan-out has come'),
  error: z.string().optional().describe('Why it ended without deliveries (a broadcast whose audience matched no device)'),
  rollout: rolloutView.optional().describe('A staged rollout only: its stages, the stage being sent, each finished stage\'s figures, and why it halted'),
});

export const notificationResponse = notificationSummary.extend({
  schedule: z
    .array(z.object({ hour: z.iso.datetime().describe('The start of the hour (UTC)'), devices: z.number().int() }))
    .optional()
    .describe('A local-time or quiet-hours send: how many devices are (or were) due in each hour'),
  engagement: engagementFunnel,
  nextDeliveriesAfter: z.uuid().nullable().optional().describe('Paginated deliveries: the `deliveriesAfter` of the next page (null on the last page)'),
  deliveries: z.array(
    z.object({
      userId: z.string(),
      deviceId: z.uuid().nullable(),
      platform: z.string().nullable(),
      status: z.enum(['sent', 'failed', 'no_devices', 'validated', 'held', 'canceled']).describe('`held`: waiting until `notBefore`; `canceled`: held when the notification was canceled'),
      notBefore: z.iso.datetime().optional().describe('When a local-time or quiet-hours delivery is (or was) due; absent otherwise'),
      providerConfigId: z.uuid().nullable(),
      providerMessageId: z.string().nullable(),
      error: z.string().nullable(),
      possiblyDelivered: z
        .boolean()
        .describe('An attempt timed out or met a 5xx (or its worker died mid-send): the device may have got it more than once. Every copy carries the same herald_delivery_id and collapse id'),
    }),
  ),
});

/** One user of a send; with personalised bulk, with their own variables. */
export interface Recipient {
  userId: string;
  variables?: Record<string, unknown>;
}

/** A send as the service takes it, from either send route's body. */
export interface SendInput {
  recipients: Recipient[];
  templateId: string;
  /** Shared by every recipient; a recipient's own variables are merged over them. */
  variables?: Record<string, unknown>;
  imageUrl?: string;
  data?: Record<string, unknown>;
  /** The send's own options; the template's defaults are merged under them when delivering. */
  options: PushOptions;
  dataOnly?: boolean;
  dryRun?: boolean;
  /** ISO 8601 with offset: deliver then. */
  sendAt?: string;
  /** Each device at the next `localTime` in its own zone. */
  deliverAt?: { localTime: string };
  /** Deliver inside quiet hours too. */
  ignoreQuietHours?: boolean;
  bulk: boolean;
  /** Sent with `recipients` (personalised bulk): missing variables are reported per recipient. */
  personalised: boolean;
}
