import { z } from 'zod';
import { AppError } from '@herald/core';
import { describeProvider, describeProviders, getProviderDefinition } from '@herald/providers';
import type { ApiContainer } from '../../container';
import { defineRoute, type AccessResource, type RouteDefinition } from '../../http/define-route';
import {
  createProviderBody,
  createPushConfigBody,
  messageResponse,
  projectQuery,
  providerParams,
  providerResponse,
  providerSchemaResponse,
  providerTestResponse,
  providerTypeParams,
  pushConfigResponse,
  updatePrioritiesBody,
  updateProviderBody,
  updatePushConfigBody,
} from './push-config.schema';
import { PROVIDER_NOT_FOUND, PushConfigService } from './push-config.service';

/** Push config and provider configuration (docs/api.md#push-config-and-providers). JWT only; writes need project_admin. */
export function pushConfigRoutes(c: ApiContainer): RouteDefinition[] {
  const service = new PushConfigService(c.db, c.config.encryption);
  const tags = ['Push config'];
  const member = { from: 'query', need: 'member' } as const;
  const admin = { from: 'query', need: 'project_admin' } as const;

  /** A provider config's project, for a project_admin of it; to anyone outside the project the provider does not exist. */
  const providerProject = async (ctx: { accessResource: AccessResource }, providerConfigId: string) =>
    (await ctx.accessResource(service.providerProjectId(providerConfigId), PROVIDER_NOT_FOUND, 'project_admin')).id;

  return [
    defineRoute(
      { method: 'post', path: '/push-config', summary: "Create the project's push config", tags, auth: 'jwt', query: projectQuery, body: createPushConfigBody, project: admin, status: 201, response: pushConfigResponse },
      ({ project, body, audit }) => service.createConfig(project.id, body.enabled, audit),
    ),
    defineRoute(
      { method: 'get', path: '/push-config', summary: "The project's push config", tags, auth: 'jwt', query: projectQuery, project: member, response: pushConfigResponse },
      ({ project }) => service.getConfig(project.id),
    ),
    defineRoute(
      { method: 'put', path: '/push-config', summary: 'Enable or disable push for the project', tags, auth: 'jwt', query: projectQuery, body: updatePushConfigBody, project: admin, response: pushConfigResponse },
      ({ project, body, audit }) => service.updateConfig(project.id, body.enabled, audit),
    ),
    defineRoute(
      { method: 'get', path: '/push-config/provider-schemas', summary: 'Credential fields of every provider type', tags, auth: 'jwt', response: z.array(providerSchemaResponse) },
      () => describeProviders(),
    ),
    defineRoute(
      { method: 'get', path: '/push-config/provider-schemas/:provider', summary: 'Credential fields of one provider type', tags, auth: 'jwt', params: providerTypeParams, response: providerSchemaResponse },
      ({ params }) => {
        const def = getProviderDefinition(params.provider);
        if (!def) throw AppError.notFound(`Unknown provider type: ${params.provider}`);
        return describeProvider(def);
      },
    ),
    defineRoute(
      { method: 'post', path: '/push-config/providers', summary: 'Add a provider configuration', tags, auth: 'jwt', query: projectQuery, body: createProviderBody, project: admin, status: 201, response: providerResponse },
      ({ project, body, audit }) => service.createProvider(project.id, body, audit),
    ),
    defineRoute(
      { method: 'get', path: '/push-config/providers', summary: "The project's providers in failover order", tags, auth: 'jwt', query: projectQuery, project: member, response: z.array(providerResponse) },
      ({ project }) => service.listProviders(project.id),
    ),
    // Before /push-config/providers/:providerConfigId, so that "priorities" is never taken for an id.
    defineRoute(
      {
        method: 'put',
        path: '/push-config/providers/priorities',
        summary: 'Set the priorities of several providers at once',
        tags,
        auth: 'jwt',
        query: projectQuery,
        body: updatePrioritiesBody,
        project: admin,
        response: z.array(providerResponse),
      },
      ({ project, body, audit }) => service.updatePriorities(project.id, body.providers, audit),
    ),
    defineRoute(
      { method: 'put', path: '/push-config/providers/:providerConfigId', summary: 'Change a provider configuration', tags, auth: 'jwt', params: providerParams, body: updateProviderBody, response: providerResponse },
      async (ctx) => service.updateProvider(await providerProject(ctx, ctx.params.providerConfigId), ctx.params.providerConfigId, ctx.body, ctx.audit),
    ),
    defineRoute(
      {
        method: 'post',
        path: '/push-config/providers/:providerConfigId/test',
        summary: 'Check that the stored credentials are accepted by the provider (nothing is sent)',
        tags,
        auth: 'jwt',
        params: providerParams,
        response: providerTestResponse,
      },
      async (ctx) =>
        service.testProvider(await providerProject(ctx, ctx.params.providerConfigId), ctx.params.providerConfigId, {
          emulatorHost: c.config.fcmEmulatorHost,
          logger: c.logger.child({ component: 'fcm' }),
        }),
    ),
    defineRoute(
      { method: 'delete', path: '/push-config/providers/:providerConfigId', summary: 'Delete a provider configuration', tags, auth: 'jwt', params: providerParams, response: messageResponse },
      async (ctx) => service.deleteProvider(await providerProject(ctx, ctx.params.providerConfigId), ctx.params.providerConfigId, ctx.audit),
    ),
  ];
}
