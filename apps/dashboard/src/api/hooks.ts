import { keepPreviousData, useMutation, useQuery, useQueryClient, type QueryKey } from '@tanstack/react-query';
import type { components } from '@herald/client';
import { api, call, session } from './client';

export type Schemas = components['schemas'];
export type Role = 'team_member' | 'project_admin';

/** A mutation that refreshes the given queries when it succeeds. */
function useWrite<I, O>(fn: (input: I) => Promise<O>, invalidate: QueryKey[]) {
  const qc = useQueryClient();
  return useMutation({ mutationFn: fn, onSuccess: () => Promise.all(invalidate.map((queryKey) => qc.invalidateQueries({ queryKey }))) });
}

// Account
export const useMe = () => useQuery({ queryKey: ['me'], queryFn: () => call(api.GET('/auth/me')), enabled: session.signedIn });

// Projects
export const useProjects = () => useQuery({ queryKey: ['projects'], queryFn: () => call(api.GET('/projects')) });
export const useProject = (projectId: string) => {
  const projects = useProjects();
  const project = projects.data?.find((p) => p.id === projectId);
  return { ...projects, project, isAdmin: project?.role === 'project_admin', isOwner: project?.isOwner === true };
};
export const useCreateProject = () => useWrite((name: string) => call(api.POST('/projects', { body: { name } })), [['projects']]);
export const useDeleteProject = () => useWrite((projectId: string) => call(api.DELETE('/projects/{projectId}', { params: { path: { projectId } } })), [['projects']]);
export const useOverview = (projectId: string) =>
  useQuery({ queryKey: ['overview', projectId], queryFn: () => call(api.GET('/projects/{projectId}/overview', { params: { path: { projectId } } })), refetchInterval: 30_000 });

// Team and invites
export const useTeam = (projectId: string) => useQuery({ queryKey: ['team', projectId], queryFn: () => call(api.GET('/projects/{projectId}/team', { params: { path: { projectId } } })) });
export const useInvites = (projectId: string) => useQuery({ queryKey: ['invites', projectId], queryFn: () => call(api.GET('/projects/{projectId}/invites', { params: { path: { projectId } } })) });
export const useRemoveMember = (projectId: string) =>
  useWrite((userId: string) => call(api.DELETE('/projects/{projectId}/members/{userId}', { params: { path: { projectId, userId } } })), [['team', projectId]]);
export const useInvite = (projectId: string) =>
  useWrite((body: { email: string; role: Role }) => call(api.POST('/projects/invite', { body: { ...body, projectId } })), [['invites', projectId]]);
export const useResendInvite = (projectId: string) =>
  useWrite((inviteId: string) => call(api.POST('/projects/resend-invite/{inviteId}', { params: { path: { inviteId } } })), [['invites', projectId]]);
export const useCancelInvite = (projectId: string) =>
  useWrite((inviteId: string) => call(api.DELETE('/projects/cancel-invite/{inviteId}', { params: { path: { inviteId } } })), [['invites', projectId]]);

// API keys
export const useApiKeys = (projectId: string, enabled: boolean) =>
  useQuery({ queryKey: ['keys', projectId], queryFn: () => call(api.GET('/projects/{projectId}/api-keys', { params: { path: { projectId } } })), enabled });
export const useCreateApiKey = (projectId: string) =>
  useWrite((name: string) => call(api.POST('/projects/{projectId}/api-keys', { params: { path: { projectId } }, body: { name } })), [['keys', projectId]]);
export const useUpdateApiKey = (projectId: string) =>
  useWrite(({ keyId, enabled }: { keyId: string; enabled: boolean }) => call(api.PATCH('/projects/{projectId}/api-keys/{keyId}', { params: { path: { projectId, keyId } }, body: { enabled } })), [['keys', projectId]]);
export const useDeleteApiKey = (projectId: string) =>
  useWrite((keyId: string) => call(api.DELETE('/projects/{projectId}/api-keys/{keyId}', { params: { path: { projectId, keyId } } })), [['keys', projectId]]);

// Templates
export const useTemplates = (projectId: string, page: number, limit = 20) =>
  useQuery({
    queryKey: ['templates', projectId, page, limit],
    queryFn: () => call(api.GET('/push-templates/project/{projectId}', { params: { path: { projectId }, query: { page, limit } } })),
    placeholderData: keepPreviousData,
  });
export const useTemplate = (templateId: string | undefined) =>
  useQuery({ queryKey: ['template', templateId], queryFn: () => call(api.GET('/push-templates/{id}', { params: { path: { id: templateId! } } })), enabled: !!templateId });
export const useTemplateVariables = (templateId: string | undefined) =>
  useQuery({ queryKey: ['template-variables', templateId], queryFn: () => call(api.GET('/push-templates/{id}/variables', { params: { path: { id: templateId! } } })), enabled: !!templateId });
export interface TemplateInput {
  name: string;
  title: string;
  body: string;
  data?: Record<string, unknown>;
}
export const useCreateTemplate = (projectId: string) => useWrite((body: TemplateInput) => call(api.POST('/push-templates', { body: { ...body, projectId } })), [['templates', projectId]]);
export const useUpdateTemplate = (projectId: string, id: string) =>
  useWrite((body: TemplateInput) => call(api.PUT('/push-templates/{id}', { params: { path: { id }, query: { projectId } }, body })), [['templates', projectId], ['template', id], ['template-variables', id], ['preview', id]]);
export const useDeleteTemplate = (projectId: string) => useWrite((id: string) => call(api.DELETE('/push-templates/{id}', { params: { path: { id } } })), [['templates', projectId]]);
export const usePreview = (projectId: string, templateId: string | undefined, variables: Record<string, unknown>) =>
  useQuery({
    queryKey: ['preview', templateId, variables],
    queryFn: () => call(api.POST('/push-templates/preview', { params: { query: { projectId } }, body: { templateId: templateId!, variables, projectId } })),
    enabled: !!templateId,
    placeholderData: keepPreviousData,
  });
export const exportTemplates = (projectId: string) => call(api.GET('/push-templates/export/{projectId}', { params: { path: { projectId } } }));
export const useImportTemplates = (projectId: string) =>
  useWrite(({ file, mode }: { file: File; mode: 'skip' | 'overwrite' }) => {
    const form = new FormData();
    form.append('file', new Blob([file], { type: 'application/json' }), file.name);
    // openapi-fetch sends a FormData body as it is; the generated type describes the part.
    return call(api.POST('/push-templates/import/{projectId}', { params: { path: { projectId }, query: { mode } }, body: form as unknown as { file: string } }));
  }, [['templates', projectId]]);

// Push config and providers
export const usePushConfig = (projectId: string) =>
  useQuery({
    queryKey: ['push-config', projectId],
    queryFn: async () => {
      const res = await api.GET('/push-config', { params: { query: { projectId } } });
      if (res.response.status === 404) return null; // not set up yet
      return call(Promise.resolve(res));
    },
  });
export const useCreatePushConfig = (projectId: string) => useWrite(() => call(api.POST('/push-config', { params: { query: { projectId } }, body: { enabled: true } })), [['push-config', projectId]]);
export const useSetPushEnabled = (projectId: string) => useWrite((enabled: boolean) => call(api.PUT('/push-config', { params: { query: { projectId } }, body: { enabled } })), [['push-config', projectId]]);
export const useProviders = (projectId: string) => useQuery({ queryKey: ['providers', projectId], queryFn: () => call(api.GET('/push-config/providers', { params: { query: { projectId } } })) });
export const useAddProvider = (projectId: string) =>
  useWrite(
    (body: { name: string; priority: number; config: { projectId: string; clientEmail: string; privateKey: string } }) =>
      call(api.POST('/push-config/providers', { params: { query: { projectId } }, body: { provider: 'fcm', ...body } })),
    [['providers', projectId]],
  );
export const useUpdateProvider = (projectId: string) =>
  useWrite(({ id, enabled }: { id: string; enabled: boolean }) => call(api.PUT('/push-config/providers/{providerConfigId}', { params: { path: { providerConfigId: id } }, body: { enabled } })), [['providers', projectId]]);
export const useDeleteProvider = (projectId: string) =>
  useWrite((id: string) => call(api.DELETE('/push-config/providers/{providerConfigId}', { params: { path: { providerConfigId: id } } })), [['providers', projectId]]);
export const useSetPriorities = (projectId: string) =>
  useWrite((providers: { id: string; priority: number }[]) => call(api.PUT('/push-config/providers/priorities', { params: { query: { projectId } }, body: { providers } })), [['providers', projectId]]);
export const testProvider = (id: string) => call(api.POST('/push-config/providers/{providerConfigId}/test', { params: { path: { providerConfigId: id } } }));

// Devices
export const useDevices = (projectId: string, userId: string) =>
  useQuery({ queryKey: ['devices', projectId, userId], queryFn: () => call(api.GET('/push/devices/{userId}', { params: { path: { userId }, query: { projectId } } })), enabled: !!userId });
export const useUnregisterDevice = (projectId: string, userId: string) =>
  useWrite((deviceToken: string) => call(api.POST('/push/unregister-device', { params: { query: { projectId } }, body: { deviceToken } })), [['devices', projectId, userId]]);

// Sending and notifications
export const useSend = (projectId: string) =>
  useWrite(
    (body: { userId: string; templateId: string; variables: Record<string, unknown>; imageUrl?: string }) => call(api.POST('/push/send', { params: { query: { projectId } }, body })),
    [['notifications', projectId]],
  );
export const useNotifications = (projectId: string, page: number, limit = 20) =>
  useQuery({
    queryKey: ['notifications', projectId, page, limit],
    queryFn: () => call(api.GET('/push/notifications', { params: { query: { projectId, page, limit } } })),
    placeholderData: keepPreviousData,
    refetchInterval: 10_000,
  });
const FINAL = ['completed', 'partially_failed', 'failed', 'canceled'];
export const isFinal = (status: string | undefined) => !!status && FINAL.includes(status);
export const useNotification = (projectId: string, notificationId: string | undefined) =>
  useQuery({
    queryKey: ['notification', projectId, notificationId],
    queryFn: () => call(api.GET('/push/notifications/{notificationId}', { params: { path: { notificationId: notificationId! }, query: { projectId } } })),
    enabled: !!notificationId,
    // Followed until it is final.
    refetchInterval: (q) => (isFinal(q.state.data?.status) ? false : 1000),
  });
