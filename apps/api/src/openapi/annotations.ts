import { IMPORT_MAX_BYTES } from '../modules/templates/templates.schema';

/**
 * What a route definition cannot say about itself: the errors its service throws (409s, a 401 for
 * a wrong password…), a second success status chosen by `reply()`. Everything else in the document
 * is derived from the definitions. Keyed by `METHOD /openapi/{path}`; a test fails on a key that names no operation.
 */
export interface OperationNotes {
  description?: string;
  /** Error statuses beyond those the definition implies (or a sharper description of one it implies). */
  errors?: Record<number, string>;
  /** Success statuses other than `spec.status`, answered through `reply()`. */
  alsoSuccess?: Record<number, string>;
}

const sendErrors = {
  400:
    'Invalid input; template variables missing (`Missing template variables: …`, one `details` entry each); variables the template cannot be rendered with within the render budget ' +
    '(`The template cannot be rendered with these variables: …`); a rendered message over FCM\'s 4 KB (`The message is 5123 bytes; FCM allows at most 4096 bytes …`); `sendAt` in the past or over 30 days ahead',
  404: 'Template not found (or not of this project), or a project the caller does not belong to',
  409:
    'Push notifications are not configured for this project | Push notifications are disabled for this project | No enabled push provider is configured for this project | ' +
    'with `sendAt`: the project holds SCHEDULED_PER_PROJECT scheduled notifications already (default 10,000)',
};

export const operationNotes: Record<string, OperationNotes> = {
  'POST /auth/signup': { errors: { 403: 'Sign-up is closed on this server (`SIGNUP_ENABLED=false`): accounts are created by accepting an invite', 409: 'An account with this email already exists' } },
  'POST /auth/signin': { errors: { 401: 'Invalid email or password' } },
  'POST /auth/refresh': {
    description: 'Rotates the refresh token: the one presented is spent. Presenting a spent token again revokes its whole session.',
    errors: { 401: 'Invalid refresh token (unknown, spent, revoked or expired)' },
  },
  'POST /auth/request-password-reset': { description: 'Answers the same whether or not the e-mail has an account.' },
  'POST /auth/reset-password': { errors: { 400: 'Invalid input, or an unknown, used or expired (1 h) reset token' } },
  'POST /auth/change-password': { errors: { 400: 'Invalid input, or the current password is incorrect' } },
  'POST /projects': { errors: { 403: 'Only accounts with the role project_admin may create projects', 409: 'The account owns PROJECTS_PER_ACCOUNT projects already (default 20)' } },
  'DELETE /projects/{projectId}/members/{userId}': { errors: { 400: 'Invalid input, or the owner cannot be removed' } },
  'POST /projects/{projectId}/api-keys': { errors: { 409: 'The project holds API_KEYS_PER_PROJECT keys already (default 100): delete one first' } },
  'POST /projects/{projectId}/webhooks': { errors: { 409: 'The project holds WEBHOOK_ENDPOINTS_PER_PROJECT endpoints already (default 20): delete one first' } },
  'POST /projects/invite': {
    errors: {
      409: 'Already a member of the project, or an invite to this e-mail is pending',
      429: 'Too many invite mails this hour for the project, the inviting user or the invited address (see docs/limits.md)',
    },
  },
  'POST /projects/accept-invite': {
    description: 'A new e-mail creates the account from firstName, lastName and password. For an existing account, `password` must be its password and the names are ignored.',
    errors: { 400: 'Invalid input, or an unknown, used, cancelled or expired invite token', 401: 'The password of the existing account is wrong', 409: 'An account with this email already exists' },
  },
  'POST /projects/resend-invite/{inviteId}': {
    errors: {
      403: 'Only project_admin members may resend invites',
      409: 'Only a pending invite can be resent',
      429: 'Too many invite mails this hour for the project, the inviting user or the invited address (see docs/limits.md)',
    },
  },
  'DELETE /projects/cancel-invite/{inviteId}': { errors: { 403: 'Only project_admin members may cancel invites', 409: 'Only a pending invite can be cancelled' } },
  'POST /push-templates': { errors: { 409: 'A template with this name already exists in the project' } },
  'PUT /push-templates/{id}': { errors: { 400: 'Invalid input, or `projectId cannot be updated`', 409: 'A template with this name already exists in the project' } },
  'POST /push-templates/import/{projectId}': {
    description:
      'Part `file`: a JSON file in the shape of the export (`TemplateExport`); only `name`, `title`, `body` and `data` of each template are read, ids and projectId are ignored. ' +
      'At most 1000 templates; nothing is imported when an entry is invalid. `mode=skip` (default) keeps a template of the same name as it is, `mode=overwrite` replaces its content.',
    errors: { 413: `The file is over ${IMPORT_MAX_BYTES} bytes (1 MiB)`, 415: 'Not multipart/form-data, or the file part is not application/json' },
  },
  'POST /push-config': { errors: { 409: 'The project already has a push config' } },
  'POST /push-config/providers': { errors: { 400: 'Invalid input, or `config` does not match the provider schema (e.g. `privateKey` is not a PEM private key)' } },
  'PUT /push-config/providers/priorities': { errors: { 400: 'Invalid input, or a provider id not of this project (nothing is changed)' } },
  'PUT /push-config/providers/{providerConfigId}': {
    description: 'A partial `config` is merged into the stored one.',
    errors: {
      400: 'Invalid input, or `Provider type cannot be changed`',
      403: 'Only project_admin members may change providers',
      409: 'The stored credentials cannot be decrypted (send the complete config to replace them)',
    },
  },
  'DELETE /push-config/providers/{providerConfigId}': { errors: { 403: 'Only project_admin members may delete providers' } },
  'POST /push-config/providers/{providerConfigId}/test': {
    description: 'Asks the provider for an access token with the stored credentials. A rejection is a 200 with `ok: false` and the reason.',
    errors: { 403: 'Only project_admin members may test providers' },
  },
  'POST /push/register-device': {
    description:
      'One record per (project, provider, deviceToken): registering a known token again moves it to the given userId and platform. Safe to call on every app launch. ' +
      'The optional attributes are set as given (`null` clears one); `tags` merge into the stored ones (a `null` value removes its key), unless the token moves to another user: then only the tags sent remain.',
    alsoSuccess: { 200: 'The token was already registered (updated)' },
    errors: { 400: 'Invalid input (each bad attribute named in `details`, e.g. `tags.plan`), or more than 50 tags on the device after the merge' },
  },
  'PATCH /push/users/{userId}/attributes': {
    description: 'Applies the attributes to every device of the user in one statement; a user without devices answers `updated: 0`. Tags merge (a `null` value removes its key); `null` clears timezone, locale or appVersion.',
    errors: { 400: 'Invalid input (e.g. `tags.plan`, `timezone`), nothing given to set, or more than 50 tags on a device after the merge (nothing is written)' },
  },
  'POST /push/users/attributes': {
    description: 'Up to 1,000 users, each once; all are written in one statement or none is.',
    errors: { 400: 'Invalid input (e.g. `users.3.timezone`), a user twice, or more than 50 tags on a device after the merge (`users.3.tags`); nothing is written' },
  },
  'POST /push/audience/count': {
    description: 'Exactly one of `segmentId`, `filter` or `all: true`. Relative times count back from the moment of the request.',
    errors: { 400: 'Invalid input: not exactly one of segmentId, filter or all; a filter problem named by its path (e.g. `filter.and.2.field`)', 404: 'Segment not found (or not of this project), or a project the caller does not belong to' },
  },
  'POST /projects/{projectId}/segments': { errors: { 403: 'Only project_admin members may write segments', 409: 'A segment with this name already exists in this project' } },
  'PUT /projects/{projectId}/segments/{segmentId}': { errors: { 403: 'Only project_admin members may write segments', 404: 'Segment not found (or not of this project)', 409: 'A segment with this name already exists in this project' } },
  'PATCH /projects/{projectId}/segments/{segmentId}': { errors: { 403: 'Only project_admin members may write segments', 404: 'Segment not found (or not of this project)', 409: 'A segment with this name already exists in this project' } },
  'DELETE /projects/{projectId}/segments/{segmentId}': { errors: { 403: 'Only project_admin members may write segments', 404: 'Segment not found (or not of this project)' } },
  'POST /push-templates/preview': {
    errors: {
      400: 'Invalid input, or variables the template cannot be rendered with within the render budget (`The template cannot be rendered with these variables: …`)',
      404: 'Template not found (or not of this project), or a project the caller does not belong to',
    },
  },
  'POST /push/send': { errors: sendErrors },
  'POST /push/send-bulk': {
    errors: { ...sendErrors, 400: `${sendErrors[400]}; more than 500 userIds or recipients; missing variables per recipient (\`Missing template variables for 2 recipients: recipients.1 (name), …\`)` },
  },
  'POST /push/notifications/{notificationId}/cancel': {
    description: 'Cancels a notification sent with `sendAt` before its time: it is never delivered.',
    errors: { 404: 'Notification not found (or not of this project)', 409: 'Only a scheduled notification can be canceled (this one is processing)' },
  },
};
