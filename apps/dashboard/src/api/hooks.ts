import { keepPreviousData, useMutation, useQuery, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { FINAL_STATUSES, type components, type paths } from '@herald/client';
import type { Audience, auditLogFilters, broadcastBody, createInviteBody, createKeyBody, createProjectBody, createSegmentBody, createTemplateBody, sendBody, updateKeyBody, updateSegmentBody, updateSettingsBody, updateTemplateBody } from '@herald/schemas';
import type { z } from 'zod';
import type { Rollout } from '../lib/rollout';
import { api, call, session } from './client';
import { queryKeys } from './query-keys';

export type Schemas = components['schemas'];
export type Role = 'team_member' | 'project_admin';

/** A mutation that refreshes the queries under the given keys when it succeeds. */
function useWrite<I, O>(fn: (input: I) => Promise<O>, invalidate: QueryKey[]) {
  const qc = useQueryClient();
  return useMutation({ mutationFn: fn, onSuccess: () => Promise.all(invalidate.map((queryKey) => qc.invalidateQueries({ queryKey }))) });
}

// Account
export const useMe = () => useQuery({ queryKey: queryKeys.me(), queryFn: () => call(api.GET('/auth/me')), enabled: session.signedIn });

// Projects
export const useProjects = () => useQuery({ queryKey: queryKeys.projectList(), queryFn: () => call(api.GET('/projects')) });
export const useProject = (projectId: string) => {
  const projects = useProjects();
  const project = projects.data?.find((p) => p.id === projectId);
  return { ...projects, project, isAdmin: project?.role === 'project_admin', isOwner: project?.isOwner === true };
};
export const useCreateProject = () => useWrite((body: z.output<typeof createProjectBody>) => call(api.POST('/projects', { body })), [queryKeys.projectList()]);
export const useDeleteProject = () => useWrite((projectId: string) => call(api.DELETE('/projects/{projectId}', { params: { path: { projectId } } })), [queryKeys.projectList()]);
export const useOverview = (projectId: string) =>
  useQuery({ queryKey: queryKeys.overview(projectId), queryFn: () => call(api.GET('/projects/{projectId}/overview', { params: { path: { projectId } } })), refetchInterval: 30_000 });

// Team and invites
export const useTeam = (projectId: string) => useQuery({ queryKey: queryKeys.team(projectId), queryFn: () => call(api.GET('/projects/{projectId}/team', { params: { path: { projectId } } })) });
export const useInvites = (projectId: string) => useQuery({ queryKey: queryKeys.invites(projectId), queryFn: () => call(api.GET('/projects/{projectId}/invites', { params: { path: { projectId } } })) });
export const useRemoveMember = (projectId: string) =>
  useWrite((userId: string) => call(api.DELETE('/projects/{projectId}/members/{userId}', { params: { path: { projectId, userId } } })), [queryKeys.team(projectId)]);
export const useInvite = (projectId: string) => useWrite((body: z.output<typeof createInviteBody>) => call(api.POST('/projects/invite', { body })), [queryKeys.invites(projectId)]);
export const useResendInvite = (projectId: string) =>
  useWrite((inviteId: string) => call(api.POST('/projects/resend-invite/{inviteId}', { params: { path: { inviteId } } })), [queryKeys.invites(projectId)]);
export const useCancelInvite = (projectId: string) =>
  useWrite((inviteId: string) => call(api.DELETE('/projects/cancel-invite/{inviteId}', { params: { path: { inviteId } } })), [queryKeys.invites(projectId)]);

// API keys
export const useApiKeys = (projectId: string, enabled: boolean) =>
  useQuery({ queryKey: queryKeys.apiKeys(projectId), queryFn: () => call(api.GET('/projects/{projectId}/api-keys', { params: { path: { projectId } } })), enabled });
export const useCreateApiKey = (projectId: string) =>
  useWrite((body: z.output<typeof createKeyBody>) => call(api.POST('/projects/{projectId}/api-keys', { params: { path: { projectId } }, body })), [queryKeys.apiKeys(projectId)]);
export const useUpdateApiKey = (projectId: string) =>
  useWrite(({ keyId, ...body }: { keyId: string } & z.output<typeof updateKeyBody>) => call(api.PATCH('/projects/{projectId}/api-keys/{keyId}', { params: { path: { projectId, keyId } }, body })), [queryKeys.apiKeys(projectId)]);
export const useDeleteApiKey = (projectId: string) =>
  useWrite((keyId: string) => call(api.DELETE('/projects/{projectId}/api-keys/{keyId}', { params: { path: { projectId, keyId } } })), [queryKeys.apiKeys(projectId)]);

// Templates
export const useTemplates = (projectId: string, page: number, limit = 20) =>
  useQuery({
    queryKey: queryKeys.templatePage(projectId, page, limit),
    queryFn: () => call(api.GET('/push-templates/project/{projectId}', { params: { path: { projectId }, query: { page, limit } } })),
    placeholderData: keepPreviousData,
  });
export const useTemplate = (projectId: string, templateId: string | undefined) =>
  useQuery({ queryKey: queryKeys.template(projectId, templateId ?? ''), queryFn: () => call(api.GET('/push-templates/{id}', { params: { path: { id: templateId! } } })), enabled: !!templateId });
export const useTemplateVariables = (projectId: string, templateId: string | undefined) =>
  useQuery({
    queryKey: queryKeys.templateVariables(projectId, templateId ?? ''),
    queryFn: () => call(api.GET('/push-templates/{id}/variables', { params: { path: { id: templateId! } } })),
    enabled: !!templateId,
  });
export const useCreateTemplate = (projectId: string) =>
  useWrite((body: z.output<typeof createTemplateBody>) => call(api.POST('/push-templates', { body })), [queryKeys.templates(projectId)]);
export const useUpdateTemplate = (projectId: string, id: string) =>
  useWrite((body: z.output<typeof updateTemplateBody>) => call(api.PUT('/push-templates/{id}', { params: { path: { id }, query: { projectId } }, body })), [queryKeys.templates(projectId)]);
export const useDeleteTemplate = (projectId: string) => useWrite((id: string) => call(api.DELETE('/push-templates/{id}', { params: { path: { id } } })), [queryKeys.templates(projectId)]);
export const usePreview = (projectId: string, templateId: string | undefined, variables: Record<string, unknown>) =>
  useQuery({
    queryKey: queryKeys.preview(projectId, templateId ?? '', variables),
    queryFn: () => call(api.POST('/push-templates/preview', { params: { query: { projectId } }, body: { templateId: templateId!, variables, projectId } })),
    enabled: !!templateId,
    placeholderData: keepPreviousData,
  });
export const useTemplateEngagement = (projectId: string, templateId: string) =>
  useQuery({ queryKey: queryKeys.templateEngagement(projectId, templateId), queryFn: () => call(api.GET('/push-templates/{id}/engagement', { params: { path: { id: templateId } } })) });
export const exportTemplates = (projectId: string) => call(api.GET('/push-templates/export/{projectId}', { params: { path: { projectId } } }));
export const useImportTemplates = (projectId: string) =>
  useWrite(({ file, mode }: { file: File; mode: 'skip' | 'overwrite' }) => {
    const form = new FormData();
    form.append('file', new Blob([file], { type: 'application/json' }), file.name);
    // openapi-fetch sends a FormData body as it is; the generated type describes the part.
    return call(api.POST('/push-templates/import/{projectId}', { params: { path: { projectId }, query: { mode } }, body: form as unknown as { file: string } }));
  }, [queryKeys.templates(projectId)]);

// Push config and providers
export const usePushConfig = (projectId: string) =>
  useQuery({
    queryKey: queryKeys.pushConfig(projectId),
    queryFn: async () => {
      const res = await api.GET('/push-config', { params: { query: { projectId } } });
      if (res.response.status === 404) return null; // not set up yet
      return call(Promise.resolve(res));
    },
  });
export const useCreatePushConfig = (projectId: string) => useWrite(() => call(api.POST('/push-config', { params: { query: { projectId } }, body: { enabled: true } })), [queryKeys.pushConfig(projectId)]);
export const useSetPushEnabled = (projectId: string) => useWrite((enabled: boolean) => call(api.PUT('/push-config', { params: { query: { projectId } }, body: { enabled } })), [queryKeys.pushConfig(projectId)]);
export const useProviders = (projectId: string) => useQuery({ queryKey: queryKeys.providers(projectId), queryFn: () => call(api.GET('/push-config/providers', { params: { query: { projectId } } })) });
export const useAddProvider = (projectId: string) =>
  useWrite(
    (body: { provider: string; name: string; priority: number; config: { projectId: string; clientEmail: string; privateKey: string } }) =>
      call(api.POST('/push-config/providers', { params: { query: { projectId } }, body })),
    [queryKeys.providers(projectId)],
  );
export const useUpdateProvider = (projectId: string) =>
  useWrite(({ id, enabled }: { id: string; enabled: boolean }) => call(api.PUT('/push-config/providers/{providerConfigId}', { params: { path: { providerConfigId: id } }, body: { enabled } })), [queryKeys.providers(projectId)]);
export const useDeleteProvider = (projectId: string) =>
  useWrite((id: string) => call(api.DELETE('/push-config/providers/{providerConfigId}', { params: { path: { providerConfigId: id } } })), [queryKeys.providers(projectId)]);
export const useSetPriorities = (projectId: string) =>
  useWrite((providers: { id: string; priority: number }[]) => call(api.PUT('/push-config/providers/priorities', { params: { query: { projectId } }, body: { providers } })), [queryKeys.providers(projectId)]);
export const testProvider = (id: string) => call(api.POST('/push-config/providers/{providerConfigId}/test', { params: { path: { providerConfigId: id } } }));

// Devices
export const useDevices = (projectId: string, userId: string) =>
  useQuery({ queryKey: queryKeys.devices(projectId, userId), queryFn: () => call(api.GET('/push/devices/{userId}', { params: { path: { userId }, query: { projectId } } })), enabled: !!userId });
export const useUnregisterDevice = (projectId: string, userId: string) =>
  useWrite((deviceToken: string) => call(api.POST('/push/unregister-device', { params: { query: { projectId } }, body: { deviceToken } })), [queryKeys.devices(projectId, userId)]);

// Sending and notifications
export const useSend = (projectId: string) =>
  useWrite((body: z.output<typeof sendBody>) => call(api.POST('/push/send', { params: { query: { projectId } }, body })), [queryKeys.notifications(projectId)]);
export const useNotifications = (projectId: string, page: number, limit = 20) =>
  useQuery({
    queryKey: queryKeys.notificationPage(projectId, page, limit),
    queryFn: () => call(api.GET('/push/notifications', { params: { query: { projectId, page, limit } } })),
    placeholderData: keepPreviousData,
    refetchInterval: 10_000,
  });
/**
 * A broadcast's body: the API's, and a staged `rollout` (sent only when the user sets one up; see
 * lib/rollout.ts for its shape).
 */
export type BroadcastRequest = z.output<typeof broadcastBody> & { rollout?: Rollout };
export const useBroadcast = (projectId: string) =>
  useWrite(
    ({ body, idempotencyKey }: { body: BroadcastRequest; idempotencyKey: string }) =>
      call(api.POST('/push/broadcast', { params: { query: { projectId }, header: { 'Idempotency-Key': idempotencyKey } }, body })),
    [queryKeys.notifications(projectId)],
  );
/** A dry run of an audience: its count, and with `deliverAt` how many devices fall in each local delivery hour. */
export const countAudience = (projectId: string, body: AudienceCountRequest) => call(api.POST('/push/audience/count', { params: { query: { projectId } }, body }));
export type AudienceCountRequest = paths['/push/audience/count']['post']['requestBody']['content']['application/json'];
export const useCancelNotification = (projectId: string) =>
  useWrite(
    (notificationId: string) => call(api.POST('/push/notifications/{notificationId}/cancel', { params: { path: { notificationId }, query: { projectId } } })),
    [queryKeys.notifications(projectId)],
  );
/** Goes on with a halted rollout's next stage (the route may be newer than this client's types: called by its path). */
export const useResumeNotification = (projectId: string) =>
  useWrite(
    (notificationId: string) =>
      call(
        (api.POST as unknown as (path: string, init: object) => Promise<{ data?: unknown; error?: unknown; response: Response }>)('/push/notifications/{notificationId}/resume', {
          params: { path: { notificationId }, query: { projectId } },
        }),
      ),
    [queryKeys.notifications(projectId)],
  );
export const isFinal = (status: string | undefined) => !!status && (FINAL_STATUSES as readonly string[]).includes(status);
/** A notification and one page of its deliveries (`deliveriesAfter`: the page after that device id). */
export const useNotification = (projectId: string, notificationId: string | undefined, deliveriesAfter?: string) =>
  useQuery({
    queryKey: [...queryKeys.notification(projectId, notificationId ?? ''), deliveriesAfter ?? null],
    queryFn: () => call(api.GET('/push/notifications/{notificationId}', { params: { path: { notificationId: notificationId! }, query: { projectId, ...(deliveriesAfter ? { deliveriesAfter } : {}) } } })),
    enabled: !!notificationId,
    placeholderData: keepPreviousData,
    // Followed until it is final; a halted rollout waits for a person, and held deliveries for their
    // time (hours, maybe), so those are asked less often.
    refetchInterval: (q) => {
      const data = q.state.data;
      if (isFinal(data?.status)) return false;
      return (data?.status as string | undefined) === 'halted' || data?.stats.held ? 5000 : 1000;
    },
  });

// Segments and audience counts
export type Segment = paths['/projects/{projectId}/segments/{segmentId}']['get']['responses'][200]['content']['application/json'];
export type AudienceCount = paths['/push/audience/count']['post']['responses'][200]['content']['application/json'];
export const useSegments = (projectId: string) =>
  useQuery({ queryKey: queryKeys.segments(projectId), queryFn: () => call(api.GET('/projects/{projectId}/segments', { params: { path: { projectId } } })) });
/** A segment's writes change its list and what counts by segment answer. */
const segmentWrites = (projectId: string) => [queryKeys.segments(projectId), queryKeys.audienceCounts(projectId)];
export const useCreateSegment = (projectId: string) =>
  useWrite((body: z.output<typeof createSegmentBody>) => call(api.POST('/projects/{projectId}/segments', { params: { path: { projectId } }, body })), segmentWrites(projectId));
export const useUpdateSegment = (projectId: string) =>
  useWrite(
    ({ segmentId, body }: { segmentId: string; body: z.output<typeof updateSegmentBody> }) => call(api.PATCH('/projects/{projectId}/segments/{segmentId}', { params: { path: { projectId, segmentId } }, body })),
    segmentWrites(projectId),
  );
export const useDeleteSegment = (projectId: string) =>
  useWrite((segmentId: string) => call(api.DELETE('/projects/{projectId}/segments/{segmentId}', { params: { path: { projectId, segmentId } } })), segmentWrites(projectId));
/** How many devices and users an audience holds now; nothing is asked while `audience` is undefined. */
export const useAudienceCount = (projectId: string, audience: Audience | undefined) =>
  useQuery({
    queryKey: queryKeys.audienceCount(projectId, audience),
    queryFn: () => call(api.POST('/push/audience/count', { params: { query: { projectId } }, body: audience! })),
    enabled: !!audience,
    placeholderData: keepPreviousData,
    retry: false,
  });
// Project settings (local time and quiet hours)
export type ProjectSettings = paths['/projects/{projectId}/settings']['get']['responses'][200]['content']['application/json'];
export const useSettings = (projectId: string) =>
  useQuery({ queryKey: queryKeys.settings(projectId), queryFn: () => call(api.GET('/projects/{projectId}/settings', { params: { path: { projectId } } })) });
export const useUpdateSettings = (projectId: string) =>
  useWrite((body: z.output<typeof updateSettingsBody>) => call(api.PUT('/projects/{projectId}/settings', { params: { path: { projectId } }, body })), [queryKeys.settings(projectId)]);

// Audit log
export type AuditFilters = z.output<typeof auditLogFilters>;
export const useAuditLog = (projectId: string, filters: AuditFilters, cursor: string | undefined, enabled: boolean) =>
  useQuery({
    queryKey: queryKeys.auditPage(projectId, filters, cursor),
    queryFn: () => call(api.GET('/projects/{projectId}/audit-log', { params: { path: { projectId }, query: { ...filters, cursor, limit: 25 } } })),
    placeholderData: keepPreviousData,
    enabled,
  });
export const useAuditVerify = (projectId: string, enabled: boolean) =>
  useQuery({ queryKey: queryKeys.auditVerify(projectId), queryFn: () => call(api.GET('/projects/{projectId}/audit-log/verify', { params: { path: { projectId } } })), enabled, staleTime: 0 });

/** A notification's deliveries with their events, for its CSV export. */
export const fetchDeliveryEvents = (projectId: string, notificationId: string) =>
  call(api.GET('/push/notifications/{notificationId}/events', { params: { path: { notificationId }, query: { projectId } } }));
