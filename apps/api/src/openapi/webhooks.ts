import type { OpenAPIV3_1 } from 'openapi-types';
import type { z } from 'zod';
import { deliveryEngagementData, deviceTokenRemovedData, notificationEventData, notificationHaltedData, testEventData, webhookPayload, WEBHOOK_TEST_EVENT, type WebhookEventType } from '@herald/core';

const SIGNING = `Signed as the Standard Webhooks specification says: \`webhook-id\` (the payload's \`id\`, the same on every retry),
\`webhook-timestamp\` (Unix seconds) and \`webhook-signature\` (\`v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">\`,
several space-separated during a secret rotation). Verify with any Standard Webhooks library, or \`verifyWebhook\` of
\`@herald/client\`. Answer 2xx within 10 s; anything else is retried with exponential backoff for 24 hours.`;

const notification = (outcome: string) =>
  `A notification ${outcome}. \`data.notification\` is its summary and stats, as \`GET /push/notifications/{notificationId}\` reports them.`;

/** Every event Herald sends to webhook endpoints, for the document's `webhooks` section. */
export const WEBHOOK_EVENTS: Record<WebhookEventType | typeof WEBHOOK_TEST_EVENT, { summary: string; description: string; data: z.ZodType }> = {
  'notification.completed': { summary: 'Delivered to every device', description: notification('was delivered to every device it was sent to'), data: notificationEventData },
  'notification.partially_failed': {
    summary: 'Delivered to some devices',
    description: notification('reached some devices and not others (a removed token counts as failed)'),
    data: notificationEventData,
  },
  'notification.failed': { summary: 'Delivered to no device', description: notification('reached no device (including users without devices)'), data: notificationEventData },
  'notification.canceled': { summary: 'Canceled before delivery', description: notification('was canceled before it was delivered'), data: notificationEventData },
  'notification.halted': {
    summary: 'A staged rollout halted itself',
    description:
      "A broadcast's staged rollout stopped after a stage whose failure or invalid-token rate crossed its bound (`data.rollout.haltReason`); it waits for `POST /push/notifications/{notificationId}/resume` or cancel. Once per halted stage.",
    data: notificationHaltedData,
  },
  'device.token_removed': {
    summary: 'A dead device token was removed',
    description: 'FCM rejected a device token as no longer valid (`error`, e.g. `UNREGISTERED`) and Herald deleted the device: drop the token from your own records too.',
    data: deviceTokenRemovedData,
  },
  'delivery.opened': {
    summary: 'A user opened a message',
    description: "An app reported through its backend (`POST /push/events`) that its user opened a delivered message; once per delivery. `data.event` is the report's time and action.",
    data: deliveryEngagementData,
  },
  'delivery.clicked': {
    summary: 'A user clicked in a message',
    description: 'An app reported through its backend (`POST /push/events`) that its user clicked in a delivered message (`data.event.action`: what, as reported); once per delivery.',
    data: deliveryEngagementData,
  },
  [WEBHOOK_TEST_EVENT]: { summary: 'Test event', description: 'Sent by `POST /projects/{projectId}/webhooks/{webhookId}/test`, whatever the endpoint subscribes to.', data: testEventData },
};

/** The OpenAPI 3.1 `webhooks` section: one POST per event type, its body the versioned envelope. */
export function webhooksSection(convert: (schema: z.ZodType) => Record<string, unknown>): Record<string, OpenAPIV3_1.PathItemObject> {
  return Object.fromEntries(
    Object.entries(WEBHOOK_EVENTS).map(([type, event]) => [
      type,
      {
        post: {
          summary: event.summary,
          description: `${event.description}\n\n${SIGNING}`,
          tags: ['Webhooks'],
          parameters: ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => ({ name, in: 'header', required: true, schema: { type: 'string' } })),
          requestBody: { required: true, content: { 'application/json': { schema: convert(webhookPayload(type, event.data)) } } },
          responses: { '2XX': { description: 'Received. Any other answer, or none within 10 s, is retried.' } },
        },
      } as OpenAPIV3_1.PathItemObject,
    ]),
  );
}
