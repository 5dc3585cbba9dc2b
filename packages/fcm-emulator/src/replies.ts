/** A transport-neutral HTTP answer, written by the HTTP/2 or the HTTP/1.1 side. */
export interface Reply {
  status: number;
  body?: string;
  headers?: Readonly<Record<string, string>>;
}

const JSON_TYPE = 'application/json; charset=UTF-8';
const FCM_ERROR = 'type.googleapis.com/google.firebase.fcm.v1.FcmError';
const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';
const BAD_REQUEST = 'type.googleapis.com/google.rpc.BadRequest';

const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'content-type': JSON_TYPE });

export function json(status: number, value: unknown, headers?: Record<string, string>): Reply {
  return { status, body: JSON.stringify(value), headers: headers ? { ...JSON_HEADERS, ...headers } : JSON_HEADERS };
}

export const noContent: Reply = { status: 204 };

function googleError(code: number, status: string, message: string, details?: unknown[], headers?: Record<string, string>): Reply {
  return json(code, { error: details ? { code, message, status, details } : { code, message, status } }, headers);
}

const fcmDetail = (errorCode: string) => ({ '@type': FCM_ERROR, errorCode });

/** FCM's error bodies, as fcm.googleapis.com writes them. */
export const fcmErrors = {
  unregistered: () => googleError(404, 'NOT_FOUND', 'Requested entity was not found.', [fcmDetail('UNREGISTERED')]),
  invalidToken: () =>
    googleError(400, 'INVALID_ARGUMENT', 'The registration token is not a valid FCM registration token', [
      fcmDetail('INVALID_ARGUMENT'),
    ]),
  invalidArgument: (message: string, field?: string) =>
    googleError(
      400,
      'INVALID_ARGUMENT',
      message,
      field
        ? [fcmDetail('INVALID_ARGUMENT'), { '@type': BAD_REQUEST, fieldViolations: [{ field, description: message }] }]
        : [fcmDetail('INVALID_ARGUMENT')],
    ),
  senderMismatch: () => googleError(403, 'PERMISSION_DENIED', 'SenderId mismatch', [fcmDetail('SENDER_ID_MISMATCH')]),
  quotaExceeded: (retryAfter: string) =>
    googleError(
      429,
      'RESOURCE_EXHAUSTED',
      "Quota exceeded for quota metric 'Send requests' and limit 'Send requests per minute' of service 'fcm.googleapis.com'.",
      [fcmDetail('QUOTA_EXCEEDED')],
      { 'retry-after': retryAfter },
    ),
  unavailable: (retryAfter?: string) =>
    googleError(
      503,
      'UNAVAILABLE',
      'The service is currently unavailable.',
      [fcmDetail('UNAVAILABLE')],
      retryAfter ? { 'retry-after': retryAfter } : undefined,
    ),
  internal: () => googleError(500, 'INTERNAL', 'Internal error encountered.', [fcmDetail('INTERNAL')]),
  thirdPartyAuth: () =>
    googleError(401, 'UNAUTHENTICATED', 'Auth error from APNS or Web Push Service', [fcmDetail('THIRD_PARTY_AUTH_ERROR')]),
  unauthenticated: (reason: 'CREDENTIALS_MISSING' | 'ACCESS_TOKEN_EXPIRED' | 'ACCESS_TOKEN_TYPE_UNSUPPORTED') =>
    googleError(
      401,
      'UNAUTHENTICATED',
      'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
      [{ '@type': ERROR_INFO, reason, domain: 'googleapis.com' }],
    ),
  permissionDenied: (projectId: string) =>
    googleError(
      403,
      'PERMISSION_DENIED',
      `Permission 'cloudmessaging.messages.create' denied on resource '//cloudresourcemanager.googleapis.com/projects/${projectId}' (or it may not exist).`,
      [{ '@type': ERROR_INFO, reason: 'IAM_PERMISSION_DENIED', domain: 'cloudresourcemanager.googleapis.com' }],
    ),
  notFound: (path: string) => googleError(404, 'NOT_FOUND', `The requested URL ${path} was not found on this server.`),
};

/** OAuth token endpoint errors: `{ error, error_description }`. */
export function oauthError(status: number, error: string, description: string): Reply {
  return json(status, { error, error_description: description });
}
