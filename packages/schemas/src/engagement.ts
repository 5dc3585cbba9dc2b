import { z } from 'zod';
import { uuid } from './ids';

/**
 * Engagement: what an app reports about a message it received, forwarded by its backend
 * (`POST /push/events`), and the analytics label FCM's own reports group messages by.
 */

/** What can happen to a delivered message on the device. */
export const ENGAGEMENT_TYPES = ['received', 'opened', 'clicked', 'dismissed'] as const;
export type EngagementType = (typeof ENGAGEMENT_TYPES)[number];

/** The key of the delivery's id in every message's `data`. */
export const DELIVERY_ID_DATA_KEY = 'herald_delivery_id';

/** Events in one request. */
export const MAX_EVENTS_PER_REQUEST = 1000;

/** FCM's own pattern for `fcm_options.analytics_label`. */
export const ANALYTICS_LABEL_PATTERN = /^[a-zA-Z0-9-_.~%]{1,50}$/;

export const analyticsLabel = z
  .string({ error: 'analyticsLabel must be a string' })
  .regex(ANALYTICS_LABEL_PATTERN, 'analyticsLabel must be 1 to 50 letters, digits or "-", "_", ".", "~", "%" (FCM\'s pattern)');

/** One event, as the app's backend reports it. */
export const engagementEvent = z.object({
  deliveryId: uuid('deliveryId').describe('The `herald_delivery_id` of the message, from its `data`'),
  type: z.enum(ENGAGEMENT_TYPES, { error: `type must be one of ${ENGAGEMENT_TYPES.join(', ')}` }),
  at: z.iso
    .datetime({ offset: true, error: 'at must be an ISO 8601 date-time with an offset, e.g. 2026-12-01T09:00:00Z' })
    .optional()
    .describe('When it happened on the device (default: when Herald receives it); neither before the message was sent nor in the future'),
  action: z
    .string({ error: 'action must be a string' })
    .min(1, 'action must not be empty')
    .max(100, 'action must be at most 100 characters')
    .optional()
    .describe('What the user chose, e.g. the id of a notification button'),
});
export type EngagementEvent = z.infer<typeof engagementEvent>;
