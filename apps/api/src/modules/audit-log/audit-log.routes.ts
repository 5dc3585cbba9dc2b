import type { ApiContainer } from '../../container';
import { defineRoute, reply, type RouteDefinition } from '../../http/define-route';
import { auditPageResponse, exportQuery, exportResponse, listQuery, projectParams, verifyResponse } from './audit-log.schema';
import { AuditLogService } from './audit-log.service';

/** The audit log (docs/audit.md): read by the project's project_admin members only. */
export function auditLogRoutes(c: ApiContainer): RouteDefinition[] {
  const log = new AuditLogService(c.db);
  const tags = ['Audit log'];
  const common = { tags, auth: 'jwt', params: projectParams, project: { from: 'params', need: 'project_admin' } } as const;

  return [
    defineRoute(
      { ...common, method: 'get', path: '/projects/:projectId/audit-log/verify', summary: 'Whether the audit chain is whole, or the first entry where it breaks', response: verifyResponse },
      ({ project }) => log.verify(project.id),
    ),
    defineRoute(
      { ...common, method: 'get', path: '/projects/:projectId/audit-log/export', summary: 'The filtered audit log as JSON Lines (application/x-ndjson), oldest first', query: exportQuery, response: exportResponse, responseType: 'application/x-ndjson' },
      async ({ project, query }) =>
        reply(200, await log.exportLines(project.id, query), {
          'Content-Type': 'application/x-ndjson; charset=utf-8',
          'Content-Disposition': `attachment; filename="audit-log-${project.id}.jsonl"`,
        }),
    ),
    defineRoute(
      { ...common, method: 'get', path: '/projects/:projectId/audit-log', summary: 'Audit entries, newest first, filtered; cursor-paginated', query: listQuery, response: auditPageResponse },
      ({ project, query }) => log.list(project.id, query),
    ),
  ];
}
