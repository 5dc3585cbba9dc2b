import type { Queue } from 'bullmq';
import type { Logger } from 'pino';
import { openSecret, signWebhook, storableText, webhookJobFor, webhookSealContext, type KeyRing } from '@herald/core';
import { SYSTEM_AUDIT_SOURCE, writeAudit, type Db, type WebhookEndpoint } from '@herald/db';
import { escapeHtml, inertText, type Mailer } from '@herald/mail';
import { postWebhook, type SendOutcome } from './sender';
import type { ProjectSlots } from './project-slots';
import { nextRetryDelay, type WebhookRetryPolicy } from './schedule';

/** How an attempt ended, for metrics. */
export type AttemptOutcome = 'succeeded' | 'http_error' | 'timeout' | 'network_error' | 'refused' | 'endpoint_disabled';

export interface WebhookObserver {
  attempt?(outcome: AttemptOutcome): void;
  /** A delivery reached a final status. */
  finished?(status: 'succeeded' | 'failed'): void;
  disabled?(): void;
}

export interface WebhookDispatcherDeps {
  db: Db;
  queue: Pick<Queue, 'add'>;
  logger: Logger;
  mailer: Mailer;
  keys: KeyRing;
  policy: WebhookRetryPolicy;
  timeoutMs: number;
  allowPrivate: boolean;
  /** An endpoint whose attempts have all failed for this long is disabled. */
  disableAfterMs: number;
  /** Requests in flight per project (WEBHOOK_PROJECT_CONCURRENCY); none: no cap. */
  slots?: ProjectSlots;
  observe?: WebhookObserver;
}

/** Characters of a response body kept in the attempt log (any bytes: NULs and broken UTF-8 are replaced). */
const KEPT_BODY_CHARS = 1024;

const outcomeOf = (o: SendOutcome): AttemptOutcome =>
  o.kind === 'response' ? (o.status >= 200 && o.status < 300 ? 'succeeded' : 'http_error') : o.kind === 'timeout' ? 'timeout' : o.kind === 'refused' ? 'refused' : 'network_error';

/** The secrets that sign a request now: the current one, and the previous one during its grace period. */
export function signingSecrets(e: WebhookEndpoint, keys: KeyRing, now = new Date()): string[] {
  const context = webhookSealContext(e.id);
  const secrets = [openSecret(e.secret, e.keyId, keys, context)];
  if (e.previousSecret && e.previousKeyId && e.previousSecretExpiresAt && e.previousSecretExpiresAt > now) {
    secrets.push(openSecret(e.previousSecret, e.previousKeyId, keys, context));
  }
  return secrets;
}

/**
 * Makes one attempt of one webhook delivery and records it: the attempt's row, the delivery's state,
 * the next attempt (a delayed job, never a sleep) or the final status, and the endpoint's health.
 *
 * A job names the attempt it is for; a delivery that is no longer pending, or whose attempt was
 * already made (a job run twice), is left alone. A worker that dies mid-request leaves the job to be
 * run again, so a receiver may get the same event twice (at least once: it dedupes by `webhook-id`).
 */
export class WebhookDispatcher {
  constructor(private readonly deps: WebhookDispatcherDeps) {}

  /**
   * Makes the attempt, or answers `{ deferMs }` without making it when the endpoint's project has its
   * share of requests in flight: the job is to come back after that long (longer the more often it
   * was put back already: `deferrals`).
   */
  async attempt(deliveryId: string, attempt: number, options: { deferrals?: number } = {}): Promise<{ deferMs: number } | undefined> {
    const { db, logger } = this.deps;
    const d = await db.webhookDelivery.findUnique({ where: { id: deliveryId }, include: { endpoint: true, event: true } });
    // Gone with its endpoint (deleted): nothing more is sent.
    if (!d || d.status !== 'pending' || d.attempts !== attempt - 1) return;
    const log = logger.child({ webhookId: d.endpointId, deliveryId, attempt });
    if (!d.endpoint.enabled) {
      await this.record(d.id, attempt, { succeeded: false, durationMs: 0, error: 'The endpoint is disabled' }, null);
      this.deps.observe?.attempt?.('endpoint_disabled');
      this.deps.observe?.finished?.('failed');
      return;
    }

    const { slots } = this.deps;
    const slot = `${deliveryId}:${attempt}`;
    if (slots && !(await slots.take(d.endpoint.projectId, slot))) return { deferMs: slots.retryDelayMs(options.deferrals) };
    const timestamp = new Date();
    const headers = signWebhook(signingSecrets(d.endpoint, this.deps.keys, timestamp), d.event.id, timestamp, d.event.body);
    const result = await postWebhook(d.endpoint.url, d.event.body, headers, { timeoutMs: this.deps.timeoutMs, allowPrivate: this.deps.allowPrivate }).finally(
      () => slots?.release(d.endpoint.projectId, slot),
    );
    const outcome = outcomeOf(result);
    const succeeded = outcome === 'succeeded';
    const delay = succeeded
      ? undefined
      : nextRetryDelay(attempt, this.deps.policy, d.event.createdAt, { retryAfterMs: result.kind === 'response' ? result.retryAfterMs : undefined });
    const error =
      result.kind === 'response' ? (succeeded ? null : `HTTP ${result.status}`) : result.error;
    const written = await this.record(
      d.id,
      attempt,
      {
        succeeded,
        durationMs: result.durationMs,
        responseStatus: result.kind === 'response' ? result.status : null,
        responseBody: result.kind === 'response' ? storableText(result.body, KEPT_BODY_CHARS) : null,
        error,
      },
      delay,
    );
    this.deps.observe?.attempt?.(outcome);
    if (!written) return undefined; // another run of this attempt recorded it first
    if (succeeded) this.deps.observe?.finished?.('succeeded');
    else if (delay === undefined) this.deps.observe?.finished?.('failed');
    if (delay !== undefined) {
      const next = webhookJobFor(d.id, attempt + 1, delay);
      await this.deps.queue.add(next.name, next.data, next.opts);
    }
    // The URL may carry a token in its query: log the endpoint's id, never its URL or headers.
    if (!succeeded) log.info({ outcome, responseStatus: result.kind === 'response' ? result.status : undefined, code: result.kind === 'response' ? undefined : result.code, retryInMs: delay }, 'webhook attempt failed');
    await this.health(d.endpoint, succeeded, timestamp);
  }

  /** The attempt's row and the delivery's new state, in one transaction; false if this attempt was already recorded. */
  private async record(
    deliveryId: string,
    attempt: number,
    a: { succeeded: boolean; durationMs: number; responseStatus?: number | null; responseBody?: string | null; error: string | null },
    delayMs: number | undefined | null,
  ): Promise<boolean> {
    const { db } = this.deps;
    const now = new Date();
    const status = a.succeeded ? 'succeeded' : delayMs == null ? 'failed' : 'pending';
    return db.$transaction(async (tx) => {
      const { count } = await tx.webhookDelivery.updateMany({
        where: { id: deliveryId, status: 'pending', attempts: attempt - 1 },
        data: {
          status,
          attempts: attempt,
          lastAttemptAt: now,
          nextAttemptAt: status === 'pending' ? new Date(now.getTime() + delayMs!) : null,
          responseStatus: a.responseStatus ?? null,
          durationMs: a.durationMs,
          error: a.error,
        },
      });
      if (!count) return false;
      await tx.webhookAttempt.create({
        data: { deliveryId, attempt, succeeded: a.succeeded, responseStatus: a.responseStatus ?? null, durationMs: a.durationMs, error: a.error, responseBody: a.responseBody ?? null },
      });
      return true;
    });
  }

  /**
   * A success ends the endpoint's failing run; a failure starts one, and a run as long as
   * `disableAfterMs` disables the endpoint and tells the project's admins, once.
   */
  private async health(endpoint: WebhookEndpoint, succeeded: boolean, at: Date) {
    const { db } = this.deps;
    if (succeeded) {
      if (endpoint.failingSince) await db.webhookEndpoint.updateMany({ where: { id: endpoint.id, failingSince: { not: null } }, data: { failingSince: null } });
      return;
    }
    if (!endpoint.failingSince) {
      await db.webhookEndpoint.updateMany({ where: { id: endpoint.id, failingSince: null }, data: { failingSince: at } });
      return;
    }
    const cutoff = new Date(at.getTime() - this.deps.disableAfterMs);
    // A change to the project's configuration made by Herald itself: audited in the same transaction.
    const count = await db.$transaction(async (tx) => {
      const disabled = await tx.webhookEndpoint.updateMany({
        where: { id: endpoint.id, enabled: true, failingSince: { lte: cutoff } },
        data: { enabled: false, disabledAt: at },
      });
      if (disabled.count) {
        await writeAudit(tx, SYSTEM_AUDIT_SOURCE, { projectId: endpoint.projectId, action: 'webhook.updated', target: { type: 'webhook', id: endpoint.id }, changes: { enabled: { before: true, after: false } } });
      }
      return disabled.count;
    });
    if (!count) return;
    this.deps.observe?.disabled?.();
    this.deps.logger.warn({ webhookId: endpoint.id, projectId: endpoint.projectId }, 'webhook endpoint disabled after failing continuously');
    await this.tellAdmins(endpoint, endpoint.failingSince).catch((err) =>
      this.deps.logger.warn({ webhookId: endpoint.id, err: { message: (err as Error).message } }, 'could not send the webhook-disabled e-mail'),
    );
  }

  private async tellAdmins(endpoint: WebhookEndpoint, failingSince: Date) {
    const project = await this.deps.db.project.findUnique({
      where: { id: endpoint.projectId },
      select: { name: true, members: { where: { role: 'project_admin' }, select: { user: { select: { email: true } } } } },
    });
    if (!project) return;
    const origin = new URL(endpoint.url).origin;
    // The project's name is whatever its creator typed: quoted, on one line and defanged, as in the
    // invite mail, so that it cannot carry a link (in the subject too).
    const name = inertText(project.name);
    const subject = `Herald disabled a webhook endpoint of ${name}`;
    const text =
      `Every delivery to the webhook endpoint ${origin} (id ${endpoint.id}) of the project ${name} has failed ` +
      `since ${failingSince.toISOString()}, so Herald has disabled it. Events are no longer sent to it.\n\n` +
      `Its deliveries and their errors: GET /projects/${endpoint.projectId}/webhooks/${endpoint.id}/deliveries. ` +
      `Once the receiver works again, enable the endpoint with PUT /projects/${endpoint.projectId}/webhooks/${endpoint.id} {"enabled": true}.\n`;
    const html = `<p>${escapeHtml(text.split('\n\n')[0])}</p><p>${escapeHtml(text.split('\n\n')[1])}</p>`;
    for (const { user } of project.members) await this.deps.mailer.send({ to: user.email, subject, text, html });
  }
}
