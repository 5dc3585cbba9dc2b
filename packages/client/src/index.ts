import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import { Webhook } from 'standardwebhooks';
import type { components, operations, paths } from './generated/schema';

export type { components, operations, paths } from './generated/schema';

type Schemas = components['schemas'];
export type ApiError = Schemas['Error'];
export type Device = Schemas['Device'];
export type Notification = Schemas['Notification'];
export type NotificationSummary = Schemas['NotificationSummary'];
export type Delivery = Schemas['Delivery'];
export type SendAccepted = Schemas['SendAccepted'];
export type Template = Schemas['Template'];
export type TemplatePreview = Schemas['TemplatePreview'];
export type Provider = Schemas['Provider'];
export type PushConfig = Schemas['PushConfig'];
export type Project = Schemas['Project'];
export type ApiKey = Schemas['ApiKey'];
export type Tokens = Schemas['Tokens'];
export type User = Schemas['User'];
export type EventsResult = Schemas['EventsResult'];
export type EngagementSeries = Schemas['EngagementSeries'];
/** One event for `POST /push/events`: `{ deliveryId, type, at?, action? }`. */
export type EngagementEvent = NonNullable<operations['postPushEvents']['requestBody']>['content']['application/json']['events'][number];

export type HeraldClient = Client<paths>;

export interface HeraldClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** Where Herald listens, e.g. `https://herald.example.com`. */
  baseUrl: string;
  /** A project API key (backends): sent as `x-api-key`. */
  apiKey?: string;
  /** A dashboard user's access token, or a function returning the current one (after refreshes). */
  accessToken?: string | (() => string | undefined);
}

/**
 * A typed client for every Herald operation (openapi-fetch over the generated `paths`):
 * `client.POST('/push/send', { body })` resolves to `{ data, error, response }`, where `data` is
 * the typed success body and `error` the `{ statusCode, message, error, details? }` body.
 */
export function createHeraldClient({ apiKey, accessToken, ...options }: HeraldClientOptions): HeraldClient {
  const client = createClient<paths>(options);
  client.use({
    onRequest({ request }) {
      if (apiKey) request.headers.set('x-api-key', apiKey);
      const token = typeof accessToken === 'function' ? accessToken() : accessToken;
      if (token) request.headers.set('authorization', `Bearer ${token}`);
      return request;
    },
  });
  return client;
}

/** An error answer of the API, thrown by the helpers below (the plain client returns it as `error`). */
export class HeraldApiError extends Error {
  override name = 'HeraldApiError';
  constructor(
    readonly status: number,
    readonly body: ApiError | undefined,
  ) {
    super(body?.message ?? `Herald answered ${status}`);
  }
}

/** A scheduled notification that was canceled is final too: it never starts. */
export const FINAL_STATUSES = ['completed', 'partially_failed', 'failed', 'canceled'] as const;

export interface WaitOptions {
  /** With a bearer token: the notification's project. */
  projectId?: string;
  /** Give up after this long (default 60 s). */
  timeoutMs?: number;
  /** Time between two reads (default 1 s). */
  intervalMs?: number;
}

/**
 * Polls `GET /push/notifications/{id}` until the notification is final (`completed`,
 * `partially_failed`, `failed` or `canceled`) and returns it, with its per-device deliveries. Mind the
 * timeout for a scheduled send: it stays `scheduled` until its `sendAt`.
 */
export async function waitForNotification(client: HeraldClient, notificationId: string, { projectId, timeoutMs = 60_000, intervalMs = 1000 }: WaitOptions = {}): Promise<Notification> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { data, error, response } = await client.GET('/push/notifications/{notificationId}', {
      params: { path: { notificationId }, query: projectId ? { projectId } : {} },
    });
    if (error || !data) throw new HeraldApiError(response.status, error);
    if ((FINAL_STATUSES as readonly string[]).includes(data.status)) return data;
    if (Date.now() + intervalMs > deadline) throw new Error(`Notification ${notificationId} is still ${data.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Events the API takes in one request. */
export const MAX_EVENTS_PER_REQUEST = 1000;

/**
 * Reports what happened to delivered messages (`POST /push/events`), in requests of up to 1,000
 * events, and returns which were recorded (`accepted`, a repeat marked `duplicate`) and which were
 * refused and why, each by its position in `events`. A refused event is no error; an error answer
 * (401, 429…) throws `HeraldApiError`, and the events of earlier requests stay recorded (sending them
 * again is harmless: a repeat changes nothing).
 */
export async function reportEvents(client: HeraldClient, events: EngagementEvent[], { projectId }: { projectId?: string } = {}): Promise<EventsResult> {
  const result: EventsResult = { accepted: [], refused: [] };
  for (let start = 0; start < events.length; start += MAX_EVENTS_PER_REQUEST) {
    const { data, error, response } = await client.POST('/push/events', {
      params: { query: projectId ? { projectId } : {} },
      body: { events: events.slice(start, start + MAX_EVENTS_PER_REQUEST) },
    });
    if (error || !data) throw new HeraldApiError(response.status, error);
    result.accepted.push(...data.accepted.map((a) => ({ ...a, index: a.index + start })));
    result.refused.push(...data.refused.map((r) => ({ ...r, index: r.index + start })));
  }
  return result;
}

/** The body of every webhook request Herald sends (see the document's `webhooks` section). */
export interface HeraldWebhookEvent<T = Record<string, unknown>> {
  version: number;
  /** `notification.completed`, `notification.partially_failed`, `notification.failed`, `notification.canceled`, `device.token_removed`, `delivery.opened`, `delivery.clicked` or `webhook.test`. */
  type: string;
  /** The same on every retry of the event: use it to ignore duplicates. */
  id: string;
  createdAt: string;
  data: T;
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? '';
  const value = (headers as Record<string, string | string[] | undefined>)[name];
  return Array.isArray(value) ? (value[0] ?? '') : (value ?? '');
}

/**
 * Verifies a webhook request from Herald with the endpoint's secret (`whsec_…`), following the
 * Standard Webhooks specification, and returns its event. Pass the body exactly as received (the raw
 * bytes, before any JSON parsing). Throws `WebhookVerificationError` when no signature matches or the
 * timestamp is more than 5 minutes away from now (a replay).
 */
export function verifyWebhook<T = Record<string, unknown>>(body: string | Buffer, headers: HeaderBag, secret: string): HeraldWebhookEvent<T> {
  const names = ['webhook-id', 'webhook-timestamp', 'webhook-signature'];
  return new Webhook(secret).verify(body, Object.fromEntries(names.map((n) => [n, header(headers, n)]))) as HeraldWebhookEvent<T>;
}

export { WebhookVerificationError } from 'standardwebhooks';

