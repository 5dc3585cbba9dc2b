import { z } from 'zod';
import { uuid } from './ids';

/**
 * Every action the audit log records (docs/audit.md): `<target>.<what happened>`. A filter on any
 * other action is a 400 naming `action`.
 */
export const AUDIT_ACTIONS = [
  'project.created',
  'project.deleted',
  'member.joined',
  'member.removed',
  'member.role_changed',
  'invite.created',
  'invite.resent',
  'invite.canceled',
  'api_key.created',
  'api_key.updated',
  'api_key.deleted',
  'template.created',
  'template.updated',
  'template.deleted',
  'templates.imported',
  'push_config.created',
  'push_config.updated',
  'provider.created',
  'provider.updated',
  'provider.deleted',
  'providers.reordered',
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
  'webhook.secret_rotated',
  'segment.created',
  'segment.updated',
  'segment.deleted',
  'settings.updated',
  'notification.canceled',
  'notification.halted',
  'notification.resumed',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const AUDIT_ACTOR_TYPES = ['user', 'apiKey', 'system'] as const;

const isoTime = (field: string) => z.iso.datetime({ offset: true, error: `${field} must be an ISO 8601 date-time` });

/** The audit log's filters (GET /projects/{projectId}/audit-log and its export); see `auditLogQuery`. */
export const auditLogFilters = z.object({
    /** A user's or an API key's id, or `system`. */
  actor: z.string({ error: 'actor must be a string' }).trim().min(1, 'actor must not be empty').max(200, 'actor is too long').optional(),
    actorType: z.enum(AUDIT_ACTOR_TYPES, { error: `actorType must be one of: ${AUDIT_ACTOR_TYPES.join(', ')}` }).optional(),
    action: z.enum(AUDIT_ACTIONS, { error: 'action must be one of the actions in docs/audit.md' }).optional(),
    targetType: z.string({ error: 'targetType must be a string' }).trim().min(1).max(100, 'targetType is too long').optional(),
    targetId: z.string({ error: 'targetId must be a string' }).trim().min(1).max(200, 'targetId is too long').optional(),
    from: isoTime('from').optional(),
    to: isoTime('to').optional(),
  });

/** A time range that runs forwards. */
export const auditTimeRangeCheck: [(q: { from?: string; to?: string }) => boolean, { path: string[]; error: string }] = [
  (q) => !q.from || !q.to || Date.parse(q.from) <= Date.parse(q.to),
  { path: ['to'], error: 'to must not be before from' },
];

export const auditLogQuery = auditLogFilters.refine(...auditTimeRangeCheck);

export const auditProjectParams = z.object({ projectId: uuid('projectId') });
