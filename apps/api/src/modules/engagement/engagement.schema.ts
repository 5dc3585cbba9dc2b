import { z } from 'zod';
import { analyticsLabel, ENGAGEMENT_TYPES, engagementEvent, jsonBytes, MAX_EVENTS_PER_REQUEST, uuid } from '@herald/schemas';

export { MAX_EVENTS_PER_REQUEST } from '@herald/schemas';

export const projectQuery = z.object({ projectId: uuid('projectId').optional() });

/**
 * Each event is checked on its own (`engagementEvent`), so that a bad one is refused alone: the body
 * only needs a list. The document still shows an event's shape.
 */
const { $schema: _, ...eventShape } = z.toJSONSchema(engagementEvent, { io: 'input' });

/** An event is a few hundred bytes at most; one far bigger is no report but abuse, and fails the request. */
export const MAX_EVENT_BYTES = 1024;

export const eventsBody = z.object({
  events: z
    .array(z.unknown().refine((e) => jsonBytes(e) <= MAX_EVENT_BYTES, `an event must be at most ${MAX_EVENT_BYTES} bytes as JSON`).meta(eventShape), { error: 'events must be an array of events' })
    .min(1, 'events must not be empty')
    .max(MAX_EVENTS_PER_REQUEST, `events must contain at most ${MAX_EVENTS_PER_REQUEST} events`)
    .describe(`Up to ${MAX_EVENTS_PER_REQUEST} events, each refused alone when it is bad`),
});

export const REFUSAL_REASONS = ['invalid', 'unknown_delivery', 'not_sent', 'before_sent', 'in_future'] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

export const eventsResponse = z.object({
  accepted: z
    .array(
      z.object({
        index: z.number().int().describe('Position in `events`'),
        deliveryId: z.uuid(),
        type: z.enum(ENGAGEMENT_TYPES),
        duplicate: z.boolean().describe('Reported before (or earlier in this request): accepted, and nothing changed'),
      }),
    )
    .describe('Events recorded, or already recorded'),
  refused: z
    .array(
      z.object({
        index: z.number().int(),
        deliveryId: z.string().optional(),
        type: z.string().optional(),
        reason: z
          .enum(REFUSAL_REASONS)
          .describe(
            '`invalid`: the event is malformed (`message` names the field); `unknown_delivery`: no delivery of this project has the id; ' +
              '`not_sent`: the delivery did not reach FCM; `before_sent`: `at` is before the message was sent; `in_future`: `at` is in the future',
          ),
        message: z.string(),
      }),
    )
    .describe('Events not recorded, each with why'),
});
export type EventsResponse = z.infer<typeof eventsResponse>;

const count = z.number().int();
const rate = z.number().describe('The count over `stats.sent` (messages FCM accepted); 0 when none was');

export const engagementFunnel = z
  .object({
    received: count,
    opened: count,
    clicked: count,
    dismissed: count,
    rates: z.object({ received: rate, opened: rate, clicked: rate, dismissed: rate }),
  })
  .describe('What the app reported about the delivered messages: one count per device and type');

export const SERIES_DAYS = 30;

export const seriesResponse = z.object({
  from: z.iso.date().describe('First day (UTC)'),
  to: z.iso.date().describe('Last day (UTC): today'),
  days: z
    .array(
      z.object({
        date: z.iso.date(),
        sent: count.describe('Messages Herald tried to deliver, of the notifications sent that day'),
        delivered: count.describe('Messages FCM accepted'),
        opened: count,
        clicked: count,
      }),
    )
    .describe(`${SERIES_DAYS} days, oldest first; a day without sends is all zeros`),
});

export const deliveryEventsResponse = z
  .array(
    z.object({
      id: z.uuid().describe('The delivery id (`herald_delivery_id` in the message)'),
      userId: z.string(),
      deviceId: z.uuid().nullable(),
      platform: z.string().nullable(),
      status: z.enum(['sent', 'failed', 'no_devices', 'validated']),
      error: z.string().nullable(),
      events: z.array(z.object({ type: z.enum(ENGAGEMENT_TYPES), at: z.iso.datetime(), action: z.string().nullable() })).describe('In the order they happened'),
    }),
  )
  .describe("A notification's deliveries, each with the events reported for it");

export const notificationParams = z.object({ notificationId: uuid('notificationId') });

export const templateSeriesParams = z.object({ id: uuid('id') });
export const labelSeriesParams = z.object({ label: analyticsLabel.describe('An analytics label') });
