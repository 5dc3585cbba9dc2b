import { rsaKey } from '../credentials';
import type { IsolationTable } from './types';

const { privateKey } = rsaKey();
const providerBody = () => ({
  provider: 'fcm',
  name: 'Stolen',
  priority: 0,
  config: { projectId: 'stolen', clientEmail: 'stolen@stolen.iam.gserviceaccount.com', privateKey },
});
const inProject = (ids: Record<string, string>) => ({ projectId: ids.projectId });

/** Push config and providers: JWT-only routes, so a foreign API key may also get 401. */
export const pushConfigTable: IsolationTable = {
  async setup(h, victim) {
    const opts = { token: victim.owner.accessToken, query: { projectId: victim.project.id } };
    const config = await h.post('/push-config', opts);
    const provider = await h.post('/push-config/providers', { ...opts, body: { ...providerBody(), name: 'Victim FCM' } });
    if (config.status !== 201 || provider.status !== 201) throw new Error(`push-config setup failed: ${config.text} ${provider.text}`);
    return { providerConfigId: provider.body.id };
  },
  cases: [
    { name: '/push-config', method: 'GET', path: () => '/push-config', query: inProject },
    { name: '/push-config', method: 'POST', path: () => '/push-config', query: inProject, body: () => ({ enabled: true }) },
    { name: '/push-config', method: 'PUT', path: () => '/push-config', query: inProject, body: () => ({ enabled: false }) },
    { name: '/push-config/providers', method: 'GET', path: () => '/push-config/providers', query: inProject },
    { name: '/push-config/providers', method: 'POST', path: () => '/push-config/providers', query: inProject, body: providerBody },
    {
      name: '/push-config/providers/priorities',
      method: 'PUT',
      path: () => '/push-config/providers/priorities',
      query: inProject,
      body: (ids) => ({ providers: [{ id: ids.providerConfigId, priority: 99 }] }),
    },
    { name: '/push-config/providers/{providerConfigId}', method: 'PUT', path: (ids) => `/push-config/providers/${ids.providerConfigId}`, body: () => ({ name: 'Stolen', enabled: false }) },
    { name: '/push-config/providers/{providerConfigId}/test', method: 'POST', path: (ids) => `/push-config/providers/${ids.providerConfigId}/test` },
    { name: '/push-config/providers/{providerConfigId}', method: 'DELETE', path: (ids) => `/push-config/providers/${ids.providerConfigId}` },
  ],
};
