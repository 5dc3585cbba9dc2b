import { AppError, mergePushOptions, pushUnavailableReason, readPushOptions, RenderTooLongError, stringifyData, type CompiledTemplate, type RenderedTemplate } from '@herald/core';
import type { TemplateRow } from '@herald/project-state';
import { fcmPayloadBytes, FCM_MAX_PAYLOAD_BYTES, toFcmMessage } from '@herald/providers';
import type { ProjectSnapshot } from '../../project-cache/project-cache';
import { renderWithin, TEMPLATE_NOT_FOUND } from '../templates/templates.service';
import { MAX_SCHEDULE_DAYS, type SendInput } from './notifications.schema';

/**
 * What a send must pass before it is admitted (docs/api.md#sending): its schedule time, then the
 * project's state (template, push config, providers), its variables and the size of its message.
 * Each failure is a clear 4xx, and nothing is written or queued.
 */

const MAX_SCHEDULE_MS = MAX_SCHEDULE_DAYS * 24 * 3600 * 1000;

/** A send's `sendAt`: in the future, at most 30 days ahead. */
export function scheduleTime(sendAt: string | undefined, now = Date.now()): Date | undefined {
  if (sendAt === undefined) return undefined;
  const at = new Date(sendAt);
  if (at.getTime() <= now) throw AppError.badRequest('sendAt must be in the future', [{ path: 'sendAt', message: 'must be in the future' }]);
  if (at.getTime() > now + MAX_SCHEDULE_MS) {
    throw AppError.badRequest(`sendAt must be at most ${MAX_SCHEDULE_DAYS} days ahead`, [{ path: 'sendAt', message: `must be at most ${MAX_SCHEDULE_DAYS} days ahead` }]);
  }
  return at;
}

/**
 * FCM refuses a message over 4 KB, so a send's render stops at 4,096 characters of title and body (a
 * message with more is over 4 KB whatever else it holds): a request costs at most that much text per
 * message, and the first message over it ends the request with a 400.
 */
const MAX_TEXT = FCM_MAX_PAYLOAD_BYTES;

/** The 400 of a message over FCM's limit: `size` is its bytes, or `over …` when its render was stopped. */
function tooBig(path: string, size: string): AppError {
  const whose = path === 'message' ? 'The message' : `The message for ${path}`;
  return AppError.badRequest(`${whose} is ${size}; FCM allows at most ${FCM_MAX_PAYLOAD_BYTES} bytes of notification, data and platform payload`, [
    { path, message: size },
  ]);
}

/** A send's render within the budget and FCM's size; its 400 names the recipient (`at`), if any. */
function renderFor(template: TemplateRow, variables: Record<string, unknown>, at?: number): ReturnType<typeof renderWithin> {
  try {
    return renderWithin(template, variables, { maxText: MAX_TEXT });
  } catch (err) {
    if (err instanceof RenderTooLongError) throw tooBig(at === undefined ? 'message' : `recipients.${at}`, `over ${FCM_MAX_PAYLOAD_BYTES} bytes`);
    if (at === undefined || !(err instanceof AppError) || err.status !== 400) throw err;
    throw AppError.badRequest(`recipients.${at}: ${err.message}`, [{ path: `recipients.${at}.variables`, message: err.message }]);
  }
}

/** Up to this many recipients are named in the message of a 400 (`details` lists every one). */
const NAMED_IN_MESSAGE = 10;

/**
 * The checks before queuing (docs/api.md#sending): each a clear 4xx, and nothing queued. Read from the
 * project's snapshot. Answers the compiled template, whose `used` keeps the variables worth storing.
 */
export async function precheck(state: ProjectSnapshot, input: SendInput): Promise<CompiledTemplate> {
  const [template, { pushEnabled, hasEnabledProvider }] = await Promise.all([state.template(input.templateId), state.sendReadiness()]);
  if (!template) throw AppError.notFound(TEMPLATE_NOT_FOUND);
  const unavailable = pushUnavailableReason({ configEnabled: pushEnabled, hasProvider: hasEnabledProvider });
  if (unavailable) throw AppError.conflict(unavailable);
  // A trial render, within the budget the worker renders with: variables that cannot be rendered
  // are refused here rather than queued to fail (or block a worker) later.
  const shared = input.variables ?? {};
  const size = sizeCheck(template, input);
  if (!input.personalised) {
    const { template: compiled, rendered } = renderFor(template, shared);
    const missing = compiled.missing(shared);
    if (missing.length) {
      throw AppError.badRequest(
        `Missing template variables: ${missing.join(', ')}`,
        missing.map((name) => ({ path: `variables.${name}`, message: 'Required by the template' })),
      );
    }
    size(rendered);
    return compiled;
  }
  const { template: compiled } = renderWithin(template, shared);
  const merged = input.recipients.map((r) => ({ ...shared, ...r.variables }));
  const missing = merged.map((vars, i) => ({ i, names: compiled.missing(vars) })).filter((m) => m.names.length);
  if (missing.length) {
    const named = missing.slice(0, NAMED_IN_MESSAGE).map((m) => `recipients.${m.i} (${m.names.join(', ')})`);
    const more = missing.length > NAMED_IN_MESSAGE ? `, and ${missing.length - NAMED_IN_MESSAGE} more` : '';
    throw AppError.badRequest(
      `Missing template variables for ${missing.length} recipient${missing.length === 1 ? '' : 's'}: ${named.join(', ')}${more}`,
      missing.flatMap((m) => m.names.map((name) => ({ path: `recipients.${m.i}.variables.${name}`, message: 'Required by the template' }))),
    );
  }
  // One render per distinct variable set (the template is compiled once: compileTemplate caches it),
  // each checked at once: the first message over 4 KB ends the request.
  const rendered = new Set<string>();
  merged.forEach((vars, at) => {
    const key = JSON.stringify(vars);
    if (rendered.has(key)) return;
    rendered.add(key);
    size(renderFor(template, vars, at).rendered, at);
  });
  return compiled;
}

/** Stand-ins of a delivery id (a UUID) and a collapse id (32 hex digits), for the size only. */
const SIZE_OF_IDS = { deliveryId: '0'.repeat(36), collapseId: '0'.repeat(32) };

/**
 * FCM refuses a message over 4 KB: better a 400 now, with the size, than a failure per device. The
 * message is built as the worker will build it (every platform block at once, the largest case).
 */
function sizeCheck(template: TemplateRow, input: SendInput) {
  const options = mergePushOptions(readPushOptions(template.options), input.options);
  const data = stringifyData(template.data as Record<string, unknown> | null, input.data);
  return (rendered: RenderedTemplate, at?: number) => {
    // With the delivery id and the collapse id every copy carries (of their fixed lengths).
    const bytes = fcmPayloadBytes(toFcmMessage({ token: '', title: rendered.title, body: rendered.body, imageUrl: input.imageUrl, data, options, dataOnly: input.dataOnly, ...SIZE_OF_IDS }));
    if (bytes > FCM_MAX_PAYLOAD_BYTES) throw tooBig(at === undefined ? 'message' : `recipients.${at}`, `${bytes} bytes`);
  };
}
