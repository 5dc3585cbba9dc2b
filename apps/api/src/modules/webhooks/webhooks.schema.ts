import { z } from 'zod';
import { WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT } from '@herald/core';
import { uuid } from '@herald/schemas';
import { paginationQuery } from '../../http/pagination';

export const projectParams = z.object({ projectId: uuid('projectId') });
export const webhookParams = z.object({ projectId: uuid('projectId'), webhookId: uuid('webhookId') });

/** Whether https is required and which addresses are allowed depend on configuration: see WebhooksService. */
const url = z.string({ error: 'url must be a string' }).trim().min(1, 'url is required').max(2048, 'url is at most 2048 characters');

const events = z
  .array(z.enum(WEBHOOK_EVENT_TYPES, { error: `events must be among ${WEBHOOK_EVENT_TYPES.join(', ')}` }), { error: 'events must be an array of event types' })
  .min(1, 'events must name at least one event type')
  .transform((list) => [...new Set(list)]);

const description = z.string({ error: 'description must be a string' }).trim().max(500, 'description is at most 500 characters').nullable();
const enabled = z.boolean({ error: 'enabled must be a boolean' });

export const createWebhookBody = z.object({ url, events, enabled: enabled.optional(), description: description.optional() });

/** Every field optional, at least one: a typo must not answer 200 and change nothing. */
export const updateWebhookBody = z
  .object({ url: url.optional(), events: events.optional(), enabled: enabled.optional(), description: description.optional() })
  .refine((b) => Object.values(b).some((v) => v !== undefined), { error: 'Provide url, events, enabled or description' });

export const webhookResponse = z.object({
  id: z.uuid(),
  url: z.string(),
  description: z.string().nullable(),
  events: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
  enabled: z.boolean(),
  /** Since when every attempt has failed; `null` while the endpoint answers. */
  failingSince: z.iso.datetime().nullable(),
  /** When Herald disabled the endpoint for failing 24 h; `null` otherwise. */
  disabledAt: z.iso.datetime().nullable(),
  /** Until when the secret before the last rotation still signs requests too. */
  previousSecretExpiresAt: z.iso.datetime().nullable(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});

export const webhookWithSecretResponse = webhookResponse.extend({
  secret: z.string().describe('The signing secret (`whsec_…`), shown only in this answer'),
});

export const testEventResponse = z.object({ eventId: z.uuid(), deliveryId: z.uuid() });

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;

export const deliveriesQuery = z.object({ ...paginationQuery, status: z.enum(DELIVERY_STATUSES, { error: `status must be one of ${DELIVERY_STATUSES.join(', ')}` }).optional() });

const attempt = z.object({
  attempt: z.number().int(),
  succeeded: z.boolean(),
  responseStatus: z.number().int().nullable(),
  durationMs: z.number().int(),
  error: z.string().nullable(),
  /** The first KB of the receiver's answer. */
  responseBody: z.string().nullable(),
  createdAt: z.iso.datetime(),
});

export const deliveryResponse = z.object({
  id: z.uuid(),
  eventId: z.uuid(),
  eventType: z.enum([...WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT]),
  status: z.enum(DELIVERY_STATUSES),
  responseStatus: z.number().int().nullable().describe('HTTP status of the last attempt; null when no answer came'),
  durationMs: z.number().int().nullable().describe('Duration of the last attempt'),
  error: z.string().nullable(),
  nextRetryAt: z.iso.datetime().nullable(),
  lastAttemptAt: z.iso.datetime().nullable(),
  createdAt: z.iso.datetime(),
  attempts: z.array(attempt),
});

export const messageResponse = z.object({ message: z.string() });
