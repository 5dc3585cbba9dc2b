import { randomBytes } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import { Webhook } from 'standardwebhooks';
import { z } from 'zod';
import { rolloutView } from '@herald/schemas';
import { FINAL_NOTIFICATION_STATUSES } from './notification-status';

/**
 * Outcome webhooks: the event types, the payload envelope, the queue contract between the API and
 * the worker, signing (Standard Webhooks) and the address policy of outgoing requests.
 */

/** Events an endpoint can subscribe to. */
export const WEBHOOK_EVENT_TYPES = [
  'notification.completed',
  'notification.partially_failed',
  'notification.failed',
  'notification.canceled',
  'notification.halted',
  'device.token_removed',
  'delivery.opened',
  'delivery.clicked',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Sent only by "send test event", whatever the endpoint subscribes to. */
export const WEBHOOK_TEST_EVENT = 'webhook.test';

/** Version of the payload envelope and of every event's `data`; raised only for breaking changes. */
export const WEBHOOK_PAYLOAD_VERSION = 1;

/** The body of every webhook request. `id` is also the `webhook-id` header: the same on every retry. */
export interface WebhookPayload<T = unknown> {
  version: number;
  type: string;
  id: string;
  createdAt: string;
  data: T;
}

export const webhookPayload = <T extends string, D extends z.ZodType>(type: T, data: D) =>
  z.object({
    version: z.literal(WEBHOOK_PAYLOAD_VERSION),
    type: z.literal(type),
    id: z.uuid().describe('Unique per event; also sent as `webhook-id`, the same on every retry: use it to ignore duplicates'),
    createdAt: z.iso.datetime(),
    data,
  });

/** A notification's counts, as `GET /push/notifications/{id}` and its webhook events show them. */
export const notificationStats = z.object({
  recipients: z.number().int(),
  devices: z.number().int(),
  sent: z.number().int(),
  failed: z.number().int(),
  invalidTokensRemoved: z.number().int(),
});

export const notificationEventData = z.object({
  notification: z.object({
    id: z.uuid(),
    status: z.enum(FINAL_NOTIFICATION_STATUSES),
    templateId: z.uuid(),
    createdAt: z.iso.datetime(),
    completedAt: z.iso.datetime().nullable(),
    stats: notificationStats,
  }),
});
export type NotificationEventData = z.infer<typeof notificationEventData>;

/** `notification.halted`: a staged rollout stopped by itself after a stage (docs/audiences.md#staged-rollout). */
export const notificationHaltedData = z.object({
  notification: notificationEventData.shape.notification.extend({ status: z.literal('halted') }),
  rollout: rolloutView,
});
export type NotificationHaltedData = z.infer<typeof notificationHaltedData>;

export const deviceTokenRemovedData = z.object({
  userId: z.string(),
  deviceId: z.uuid(),
  platform: z.string().nullable(),
  provider: z.string(),
  /** FCM's error code, e.g. `UNREGISTERED`. */
  error: z.string(),
  /** The notification whose delivery found the token dead. */
  notificationId: z.uuid().nullable(),
});
export type DeviceTokenRemovedData = z.infer<typeof deviceTokenRemovedData>;

/** `delivery.opened` and `delivery.clicked`: an app reported that its user opened or clicked a message. */
export const deliveryEngagementData = z.object({
  delivery: z.object({
    id: z.uuid().describe('The `herald_delivery_id` of the message'),
    notificationId: z.uuid(),
    userId: z.string(),
    deviceId: z.uuid().nullable(),
    platform: z.string().nullable(),
  }),
  event: z.object({
    type: z.enum(['opened', 'clicked']),
    at: z.iso.datetime().describe('When it happened on the device, as reported'),
    action: z.string().nullable().describe('What the user chose, as reported'),
  }),
});
export type DeliveryEngagementData = z.infer<typeof deliveryEngagementData>;

export const testEventData = z.object({ webhookId: z.uuid(), message: z.string() });

export interface WebhookEventInput {
  type: WebhookEventType | typeof WEBHOOK_TEST_EVENT;
  data: unknown;
  /** The same key in the same project is emitted once (e.g. `notification:<id>`). */
  dedupeKey?: string;
}

// The queue contract.
export const WEBHOOKS_QUEUE = 'webhooks';

/**
 * One attempt of one delivery. Retries are new delayed jobs (`attempt` + 1), scheduled by the worker
 * after each failed attempt; BullMQ's own attempts only cover crashes and infrastructure errors.
 */
export const webhookJob = {
  name: 'send',
  schema: z.object({ deliveryId: z.uuid(), attempt: z.number().int().min(1) }),
  options: {
    attempts: 5,
    backoff: { type: 'exponential', delay: 2000 },
    removeOnComplete: { age: 3600, count: 10_000 },
    removeOnFail: { age: 7 * 24 * 3600 },
  },
} as const;
export type WebhookJobData = z.infer<typeof webhookJob.schema>;

/** Adding the same attempt twice is a no-op while its job exists. */
export const webhookJobId = (deliveryId: string, attempt: number) => `webhook-${deliveryId}-${attempt}`;

export const webhookJobFor = (deliveryId: string, attempt: number, delay = 0) => ({
  name: webhookJob.name,
  data: { deliveryId, attempt } satisfies WebhookJobData,
  opts: { ...webhookJob.options, jobId: webhookJobId(deliveryId, attempt), ...(delay > 0 ? { delay } : {}) },
});

// Signing.

/** The signing secret's envelope (see crypto.ts) is bound to its endpoint: copied into another row, it does not open. */
export const webhookSealContext = (endpointId: string) => `webhookEndpoint:${endpointId}`;

/** `whsec_` + base64 of 32 random bytes, the secret format of the Standard Webhooks libraries. */
export const generateWebhookSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/**
 * The Standard Webhooks headers of one request. Every secret given signs it (the current one, and the
 * previous one during a rotation's grace period): `webhook-signature` lists them space-separated, and a
 * receiver accepts the request when any matches the secret it holds.
 */
export function signWebhook(secrets: string[], id: string, timestamp: Date, body: string): Record<string, string> {
  const signatures = secrets.map((secret) => new Webhook(secret).sign(id, timestamp, body));
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}

// Where webhooks may go.

export interface WebhookAddressPolicy {
  /** Loopback, private, link-local and metadata addresses allowed (development and tests only). */
  allowPrivate: boolean;
  /** Host names (lowercase) that may be called over plain http; every other URL must be https. */
  httpHosts: readonly string[];
}

/**
 * Whether an address is on the public internet: ipaddr.js's `unicast` range, after unwrapping
 * IPv4-mapped IPv6. Everything else — loopback, RFC 1918, carrier-grade NAT, link-local (where cloud
 * metadata services live, 169.254.169.254 and fd00:ec2::254 alike), unique-local, multicast, reserved,
 * 6to4/Teredo/NAT64 forms that can hide an internal IPv4 — is refused.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const ip = ipaddr.process(address);
  if (ip.range() !== 'unicast') return false;
  // IPv6 outside global unicast (2000::/3) is refused whatever ipaddr.js calls it: the deprecated
  // IPv4-compatible `::a.b.c.d` (`[::127.0.0.1]`) is "unicast" to it, and reaches the IPv4 inside.
  return ip.kind() === 'ipv4' || (ip as ipaddr.IPv6).match(GLOBAL_UNICAST_V6);
}

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

const bareHost = (hostname: string) => hostname.replace(/^\[|\]$/g, '').toLowerCase();

/**
 * Checks a webhook URL as it is written (the worker checks the resolved addresses again at connect
 * time). Returns why it is refused, or undefined.
 */
export function webhookUrlProblem(raw: string, policy: WebhookAddressPolicy): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'url must be an absolute URL';
  }
  if (url.username || url.password) return 'url must not contain credentials';
  // A trailing dot names the same host (`localhost.` is localhost).
  const host = bareHost(url.hostname).replace(/\.$/, '');
  if (url.protocol === 'http:') {
    if (!policy.httpHosts.includes(host)) return 'url must use https';
  } else if (url.protocol !== 'https:') {
    return 'url must use https';
  }
  if (!policy.allowPrivate && ipaddr.isValid(host) && !isPublicAddress(host)) return 'url must not point at a loopback, private, link-local or metadata address';
  if (!policy.allowPrivate && (host === 'localhost' || host.endsWith('.localhost'))) return 'url must not point at a loopback, private, link-local or metadata address';
  // A single-label name (`intranet`) resolves through the local search domains, inside the network.
  if (!policy.allowPrivate && !ipaddr.isValid(host) && !host.includes('.') && !policy.httpHosts.includes(host)) return 'url must use a fully qualified domain name';
  return undefined;
}
