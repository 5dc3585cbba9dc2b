import { SYSTEM_AUDIT_SOURCE, writeAudit } from '@herald/db';
import type { IsolationCase, IsolationTable } from './types';

/** The audit log: a stranger reads, exports and verifies none of the victim's entries (and, by victimState, adds none). */
export const auditLogTable: IsolationTable = {
  async setup(h, victim) {
    await writeAudit(h.db, SYSTEM_AUDIT_SOURCE, { projectId: victim.project.id, action: 'settings.updated', target: { type: 'project', id: victim.project.id }, changes: { name: { before: null, after: victim.project.name } } });
    return {};
  },
  cases: [
    { name: '/projects/{projectId}/audit-log', method: 'GET', path: (ids) => `/projects/${ids.projectId}/audit-log` },
    { name: '/projects/{projectId}/audit-log (filtered)', method: 'GET', path: (ids) => `/projects/${ids.projectId}/audit-log`, query: () => ({ action: 'settings.updated' }) },
    { name: '/projects/{projectId}/audit-log/export', method: 'GET', path: (ids) => `/projects/${ids.projectId}/audit-log/export` },
    { name: '/projects/{projectId}/audit-log/verify', method: 'GET', path: (ids) => `/projects/${ids.projectId}/audit-log/verify` },
  ] satisfies IsolationCase[],
};
