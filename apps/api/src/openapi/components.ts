import { auditEntryResponse, auditPageResponse, verifyResponse } from '../modules/audit-log/audit-log.schema';
import { z } from 'zod';
import { apiKeyResponse, createdKeyResponse, messageResponse as apiKeyMessage } from '../modules/api-keys/api-keys.schema';
import { messageResponse as authMessage, tokenResponse, userResponse } from '../modules/auth/auth.schema';
import { deviceResponse, messageResponse as deviceMessage } from '../modules/devices/devices.schema';
import { deliveryEventsResponse, engagementFunnel, eventsResponse, seriesResponse } from '../modules/engagement/engagement.schema';
import { acceptInviteResponse, inviteResponse } from '../modules/invites/invites.schema';
import { acceptedBulkResponse, acceptedResponse, notificationResponse, notificationSummary } from '../modules/notifications/notifications.schema';
import { messageResponse as projectMessage, projectListResponse, projectResponse, teamResponse } from '../modules/projects/projects.schema';
import { messageResponse as pushConfigMessage, providerResponse, providerSchemaResponse, pushConfigResponse } from '../modules/push-config/push-config.schema';
import {
  exportResponse,
  importResponse,
  messageResponse as templateMessage,
  previewResponse,
  templatePageResponse,
  templateResponse,
  variablesResponse,
} from '../modules/templates/templates.schema';

/** docs/api.md#errors: the body of every error, whatever the status (built by `errorBody` in @herald/core). */
export const errorResponse = z.object({
  statusCode: z.number().int().min(400).max(599),
  message: z.string(),
  error: z.string().describe('The standard reason phrase of the status, e.g. "Bad Request"'),
  details: z
    .array(z.object({ path: z.string().describe('Dotted path of the offending input, e.g. "userIds.3"'), message: z.string() }))
    .optional()
    .describe('Validation errors (400) only: one entry per offending input'),
});

export const healthResponse = z.object({ status: z.literal('ok') });

const check = z.enum(['up', 'down']);
const checks = z.object({ postgres: check, redis: check });
export const readyResponse = z.object({ status: z.literal('ok'), checks });
export const notReadyResponse = errorResponse.extend({ checks });

/** The document itself: an OpenAPI 3.1 object (not described further here). */
export const openApiDocumentResponse = z.object({ openapi: z.string(), info: z.object({ title: z.string(), version: z.string() }).loose() }).loose();

/**
 * Names the response schemas the modules export (zod's global registry, the metadata that
 * `z.toJSONSchema` reads), so that the document and the typed client say `Template` instead of
 * repeating its shape in every operation. The schemas stay in their modules; this only labels them.
 */
function name(schema: z.ZodType, id: string, description?: string) {
  z.globalRegistry.add(schema, { ...z.globalRegistry.get(schema), id, ...(description ? { description } : {}) });
}

name(errorResponse, 'Error', 'The body of every error response.');
// Each module keeps its own `{ message }` schema; they are one component.
for (const m of [authMessage, projectMessage, apiKeyMessage, pushConfigMessage, templateMessage, deviceMessage]) name(m, 'Message');
name(userResponse, 'User');
name(tokenResponse, 'Tokens', 'A session: a short-lived access token (JWT) and a rotating refresh token.');
name(projectResponse, 'Project');
name(projectListResponse.element, 'ProjectMembership', "A project with the caller's role in it.");
name(teamResponse.element, 'TeamMember');
name(inviteResponse, 'Invite');
name(acceptInviteResponse, 'AcceptedInvite');
name(apiKeyResponse, 'ApiKey');
name(createdKeyResponse, 'CreatedApiKey', 'A new API key. `key` is shown here only, never again.');
name(templateResponse, 'Template');
name(templatePageResponse, 'TemplatePage');
name(variablesResponse, 'TemplateVariables');
name(previewResponse, 'TemplatePreview');
name(exportResponse, 'TemplateExport');
name(importResponse, 'TemplateImportResult');
name(deviceResponse, 'Device');
name(acceptedResponse, 'SendAccepted', 'A send accepted into the queue.');
name(acceptedBulkResponse, 'SendBulkAccepted', 'A bulk send accepted into the queue; `recipients` counts distinct users.');
name(notificationSummary.shape.stats, 'NotificationStats');
name(notificationSummary, 'NotificationSummary');
name(notificationResponse, 'Notification');
name(notificationResponse.shape.deliveries.element, 'Delivery');
name(engagementFunnel, 'EngagementFunnel');
name(eventsResponse, 'EventsResult', 'Which events were recorded (`accepted`) and why each other one was not (`refused`).');
name(seriesResponse, 'EngagementSeries');
name(deliveryEventsResponse.element, 'DeliveryWithEvents', 'A delivery with the events reported for it.');
name(pushConfigResponse, 'PushConfig');
name(providerResponse, 'Provider', 'A provider configuration; `config.privateKey` is always "********".');
name(providerSchemaResponse, 'ProviderSchema');
name(auditEntryResponse, 'AuditEntry', 'One change to a project: who, what, from where and when (docs/audit.md).');
name(auditPageResponse, 'AuditPage', 'Audit entries, newest first; pass `nextCursor` as `cursor` for the next page.');
name(verifyResponse, 'AuditVerification');
name(healthResponse, 'Health');
name(readyResponse, 'Ready');
name(notReadyResponse, 'NotReady');
