import type { ApiContainer } from '../../container';
import { defineRoute, type AccessResource, type RouteDefinition } from '../../http/define-route';
import {
  createTemplateBody,
  exportResponse,
  idParams,
  importQuery,
  importResponse,
  listTemplatesQuery,
  messageResponse,
  paginationQuery,
  previewBody,
  previewResponse,
  projectParams,
  projectQuery,
  templatePageResponse,
  templateResponse,
  updateTemplateBody,
  variablesResponse,
} from './templates.schema';
import { TEMPLATE_NOT_FOUND, TemplateService } from './templates.service';
import { importFile } from './templates.upload';

export function templateRoutes(c: ApiContainer): RouteDefinition[] {
  const templates = new TemplateService(c.db);
  const tags = ['Push templates'];

  /** For routes addressed by template id alone: the template's project, for a member of it. */
  const templateProject = async (accessResource: AccessResource, id: string) => (await accessResource(templates.projectOf(id), TEMPLATE_NOT_FOUND)).id;

  // Static paths first: `preview`, `export`, `import` and `project` are not template ids.
  return [
    defineRoute(
      {
        method: 'post',
        path: '/push-templates/preview',
        summary: 'Render a template with variables',
        tags,
        auth: 'keyOrJwt',
        scope: 'templates:read',
        query: projectQuery,
        body: previewBody,
        project: { from: 'bodyOrQuery' },
        response: previewResponse,
      },
      ({ project, body }) => templates.preview(project.id, body.templateId, body.variables ?? {}),
    ),
    defineRoute(
      {
        method: 'get',
        path: '/push-templates/export/:projectId',
        summary: "Export a project's templates",
        tags,
        auth: 'jwt',
        params: projectParams,
        project: { from: 'params' },
        response: exportResponse,
      },
      ({ project }) => templates.export(project),
    ),
    defineRoute(
      {
        method: 'post',
        path: '/push-templates/import/:projectId',
        summary: 'Import templates from an export file (multipart, part "file")',
        tags,
        auth: 'jwt',
        params: projectParams,
        query: importQuery,
        project: { from: 'params' },
        upload: importFile,
        status: 201,
        response: importResponse,
      },
      ({ project, query, upload, audit }) => templates.import(project.id, upload, query.mode, audit),
    ),
    defineRoute(
      {
        method: 'get',
        path: '/push-templates/project/:projectId',
        summary: "A page of a project's templates",
        tags,
        auth: 'jwt',
        params: projectParams,
        query: paginationQuery,
        project: { from: 'params' },
        response: templatePageResponse,
      },
      ({ project, query }) => templates.list({ projectId: project.id }, query),
    ),
    defineRoute(
      { method: 'post', path: '/push-templates', summary: 'Create a template', tags, auth: 'jwt', body: createTemplateBody, project: { from: 'body' }, status: 201, response: templateResponse },
      ({ project, body, audit }) => templates.create(project.id, body, audit),
    ),
    defineRoute(
      {
        method: 'get',
        path: '/push-templates',
        summary: "A page of templates of one project (projectId) or of all the caller's projects",
        tags,
        auth: 'jwt',
        query: listTemplatesQuery,
        response: templatePageResponse,
      },
      async ({ caller, query, access }) => {
        if (!query.projectId) return templates.list({ userId: caller.userId }, query);
        await access(query.projectId);
        return templates.list({ projectId: query.projectId }, query);
      },
    ),
    defineRoute(
      { method: 'get', path: '/push-templates/:id/variables', summary: "A template's variables", tags, auth: 'jwt', params: idParams, response: variablesResponse },
      async ({ params, accessResource }) => templates.variables(await templateProject(accessResource, params.id), params.id),
    ),
    defineRoute(
      { method: 'get', path: '/push-templates/:id', summary: 'One template', tags, auth: 'jwt', params: idParams, response: templateResponse },
      async ({ params, accessResource }) => templates.get(await templateProject(accessResource, params.id), params.id),
    ),
    defineRoute(
      {
        method: 'put',
        path: '/push-templates/:id',
        summary: 'Update a template (API key, or JWT with ?projectId)',
        tags,
        auth: 'keyOrJwt',
        scope: 'templates:write',
        params: idParams,
        query: projectQuery,
        body: updateTemplateBody,
        project: { from: 'query' },
        response: templateResponse,
      },
      // Found by id within the caller's project (the key's, or the JWT's projectId): never another's.
      ({ project, params, body, audit }) => templates.update(project.id, params.id, body, audit),
    ),
    defineRoute(
      { method: 'delete', path: '/push-templates/:id', summary: 'Delete a template', tags, auth: 'jwt', params: idParams, response: messageResponse },
      async ({ params, accessResource, audit }) => templates.delete(await templateProject(accessResource, params.id), params.id, audit),
    ),
  ];
}
