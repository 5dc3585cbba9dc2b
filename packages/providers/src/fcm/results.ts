import type { IncomingHttpHeaders } from 'node:http2';
import type { TokenResult } from '../types';

/** The parts of a Google API error body (`{ error: { code, message, status, details } }`) that decide the outcome. */
interface GoogleError {
  status?: string;
  message?: string;
  /** From the `google.firebase.fcm.v1.FcmError` detail: UNREGISTERED, SENDER_ID_MISMATCH, QUOTA_EXCEEDED… */
  errorCode?: string;
  /** Fields named by a `google.rpc.BadRequest` detail. */
  fields: string[];
}

const FCM_ERROR_TYPE = 'type.googleapis.com/google.firebase.fcm.v1.FcmError';
const BAD_REQUEST_TYPE = 'type.googleapis.com/google.rpc.BadRequest';

/** Maps one messages:send answer to Herald's result. */
export function toTokenResult(httpStatus: number, headers: IncomingHttpHeaders, body: string, now: number): TokenResult {
  if (httpStatus === 200) {
    const name = parseJson(body)?.name;
    if (typeof name === 'string') return { status: 'sent', providerMessageId: name };
    return { status: 'failed', error: 'FCM answered 200 without a message name' };
  }

  const e = parseGoogleError(body);
  const error = `FCM ${httpStatus} ${e.errorCode ?? e.status ?? 'error'}: ${e.message ?? truncate(body)}`;
  // A 5xx leaves the message's fate unknown (FCM may have delivered it: firebase-admin-node#1248); a 429 refused it.
  const retryable = (): TokenResult =>
    httpStatus >= 500
      ? { status: 'retryable', error, retryAfterMs: parseRetryAfter(headers['retry-after'], now), ambiguous: true }
      : { status: 'retryable', error, retryAfterMs: parseRetryAfter(headers['retry-after'], now) };

  // FCM puts its own code in an FcmError detail; a stand-in that puts it in `status` is read the same.
  // A bare NOT_FOUND is not taken for UNREGISTERED: a wrong project id answers it for every token.
  switch (e.errorCode ?? e.status) {
    case 'UNREGISTERED':
      return { status: 'invalid_token', error };
    case 'SENDER_ID_MISMATCH':
      return { status: 'sender_mismatch', error };
    case 'QUOTA_EXCEEDED':
    case 'UNAVAILABLE':
    case 'INTERNAL':
      return retryable();
    // APNs certificate or web-push key missing in the Firebase project: another service account cannot fix it.
    case 'THIRD_PARTY_AUTH_ERROR':
      return { status: 'failed', error };
  }
  // INVALID_ARGUMENT also covers malformed payloads; only an error about the token proves the device is gone.
  if (httpStatus === 400 && (e.errorCode === 'INVALID_ARGUMENT' || e.status === 'INVALID_ARGUMENT') && isAboutToken(e)) {
    return { status: 'invalid_token', error };
  }
  if (httpStatus === 429 || httpStatus >= 500) return retryable();
  if (httpStatus === 401 || httpStatus === 403) return { status: 'auth_failed', error };
  return { status: 'failed', error };
}

function isAboutToken(e: GoogleError): boolean {
  return e.fields.includes('message.token') || /registration token/i.test(e.message ?? '');
}

/** Retry-After as delay-seconds or an HTTP-date, in ms from `now`. */
export function parseRetryAfter(value: string | string[] | undefined, now: number): number | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function parseGoogleError(body: string): GoogleError {
  const error = parseJson(body)?.error;
  if (!isRecord(error)) return { fields: [] };
  const result: GoogleError = {
    status: typeof error.status === 'string' ? error.status : undefined,
    message: typeof error.message === 'string' ? error.message : undefined,
    fields: [],
  };
  for (const detail of Array.isArray(error.details) ? error.details : []) {
    if (!isRecord(detail)) continue;
    if (detail['@type'] === FCM_ERROR_TYPE && typeof detail.errorCode === 'string') result.errorCode = detail.errorCode;
    if (detail['@type'] === BAD_REQUEST_TYPE && Array.isArray(detail.fieldViolations)) {
      for (const v of detail.fieldViolations) if (isRecord(v) && typeof v.field === 'string') result.fields.push(v.field);
    }
  }
  return result;
}

export function parseJson(body: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(body);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function truncate(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > 200 ? `${oneLine.slice(0, 200)}…` : oneLine || '(empty body)';
}
