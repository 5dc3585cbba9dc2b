/**
 * Every query key of the dashboard, built in one place (TanStack Query's key factory). Keys nest: a
 * project's keys start with `project(id)`, a template's with its project's `templates`, so that a write
 * invalidates everything it may have changed with one prefix (a template's update: the lists, the
 * template, its variables and its previews).
 */
export const queryKeys = {
  me: () => ['me'] as const,
  projectList: () => ['projects'] as const,
  project: (projectId: string) => ['project', projectId] as const,
  overview: (projectId: string) => [...queryKeys.project(projectId), 'overview'] as const,
  team: (projectId: string) => [...queryKeys.project(projectId), 'team'] as const,
  invites: (projectId: string) => [...queryKeys.project(projectId), 'invites'] as const,
  apiKeys: (projectId: string) => [...queryKeys.project(projectId), 'api-keys'] as const,
  templates: (projectId: string) => [...queryKeys.project(projectId), 'templates'] as const,
  templatePage: (projectId: string, page: number, limit: number) => [...queryKeys.templates(projectId), 'list', { page, limit }] as const,
  template: (projectId: string, templateId: string) => [...queryKeys.templates(projectId), templateId] as const,
  templateEngagement: (projectId: string, templateId: string) => [...queryKeys.template(projectId, templateId), 'engagement'] as const,
  templateVariables: (projectId: string, templateId: string) => [...queryKeys.template(projectId, templateId), 'variables'] as const,
  preview: (projectId: string, templateId: string, variables: Record<string, unknown>) => [...queryKeys.template(projectId, templateId), 'preview', variables] as const,
  pushConfig: (projectId: string) => [...queryKeys.project(projectId), 'push-config'] as const,
  providers: (projectId: string) => [...queryKeys.project(projectId), 'providers'] as const,
  devices: (projectId: string, userId: string) => [...queryKeys.project(projectId), 'devices', userId] as const,
  notifications: (projectId: string) => [...queryKeys.project(projectId), 'notifications'] as const,
  notificationPage: (projectId: string, page: number, limit: number) => [...queryKeys.notifications(projectId), 'list', { page, limit }] as const,
  notification: (projectId: string, notificationId: string) => [...queryKeys.notifications(projectId), notificationId] as const,
  segments: (projectId: string) => [...queryKeys.project(projectId), 'segments'] as const,
  audienceCounts: (projectId: string) => [...queryKeys.project(projectId), 'audience-count'] as const,
  audienceCount: (projectId: string, audience: unknown) => [...queryKeys.audienceCounts(projectId), audience] as const,
  settings: (projectId: string) => [...queryKeys.project(projectId), 'settings'] as const,
  auditLog: (projectId: string) => [...queryKeys.project(projectId), 'audit-log'] as const,
  auditPage: (projectId: string, filters: object, cursor: string | undefined) => [...queryKeys.auditLog(projectId), 'list', filters, cursor ?? null] as const,
  auditVerify: (projectId: string) => [...queryKeys.auditLog(projectId), 'verify'] as const,
};
