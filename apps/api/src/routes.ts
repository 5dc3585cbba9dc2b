import type { ApiContainer } from './container';
import type { RouteDefinition } from './http/define-route';
import { apiKeyRoutes } from './modules/api-keys/api-keys.routes';
import { auditLogRoutes } from './modules/audit-log/audit-log.routes';
import { attributeRoutes } from './modules/attributes/attributes.routes';
import { audienceRoutes } from './modules/audiences/audiences.routes';
import { authRoutes } from './modules/auth/auth.routes';
import { engagementRoutes } from './modules/engagement/engagement.routes';
import { deviceRoutes } from './modules/devices/devices.routes';
import { notificationRoutes } from './modules/notifications/notifications.routes';
import { overviewRoutes } from './modules/overview/overview.routes';
import { inviteRoutes } from './modules/invites/invites.routes';
import { projectRoutes } from './modules/projects/projects.routes';
import { pushConfigRoutes } from './modules/push-config/push-config.routes';
import { settingsRoutes } from './modules/settings/settings.routes';
import { templateRoutes } from './modules/templates/templates.routes';
import { webhookRoutes } from './modules/webhooks/webhooks.routes';

/**
 * Every route of the API, in mounting order: static paths before parameterised ones, and the routes
 * customer backends call most (sending, device registration) first, since Express tries each in turn.
 */
export function apiRoutes(c: ApiContainer): RouteDefinition[] {
  return [
    ...notificationRoutes(c),
    ...deviceRoutes(c),
    ...attributeRoutes(c),
    ...audienceRoutes(c),
    ...authRoutes(c),
    ...inviteRoutes(c),
    ...projectRoutes(c),
    ...settingsRoutes(c),
    ...apiKeyRoutes(c),
    ...pushConfigRoutes(c),
    ...templateRoutes(c),
    ...engagementRoutes(c),
    ...overviewRoutes(c),
    ...webhookRoutes(c),
    ...auditLogRoutes(c),
  ];
}
