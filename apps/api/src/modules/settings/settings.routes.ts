import type { ApiContainer } from '../../container';
import { defineRoute, type RouteDefinition } from '../../http/define-route';
import { projectParams, settingsResponse, updateSettingsBody } from './settings.schema';
import { SettingsService } from './settings.service';

/** A project's settings (docs/api.md#project-settings): members read them, project admins write them. */
export function settingsRoutes(c: ApiContainer): RouteDefinition[] {
  const settings = new SettingsService(c.db);
  const tags = ['Projects'];
  return [
    defineRoute(
      { method: 'get', path: '/projects/:projectId/settings', summary: "The project's settings (default time zone, quiet hours, delivery id in messages)", tags, auth: 'jwt', params: projectParams, project: { from: 'params' }, response: settingsResponse },
      ({ project }) => settings.get(project.id),
    ),
    defineRoute(
      {
        method: 'put',
        path: '/projects/:projectId/settings',
        summary: "Change the project's settings (project_admin; fields left out keep their value)",
        tags,
        auth: 'jwt',
        params: projectParams,
        body: updateSettingsBody,
        project: { from: 'params', need: 'project_admin' },
        response: settingsResponse,
      },
      ({ project, body, audit }) => settings.update(project.id, body, audit),
    ),
  ];
}
