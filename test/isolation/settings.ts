import type { IsolationCase, IsolationTable } from './types';

/** Project settings: the victim's are written in setup, and no stranger reads or changes them. */
export const settingsTable: IsolationTable = {
  async setup(h, victim) {
    await h.db.projectSettings.create({ data: { projectId: victim.project.id, defaultTimezone: 'Europe/Berlin', quietHoursStart: '22:00', quietHoursEnd: '08:00' } });
    return {};
  },
  cases: [
    { name: '/projects/{projectId}/settings', method: 'GET', path: (ids) => `/projects/${ids.projectId}/settings` },
    { name: '/projects/{projectId}/settings', method: 'PUT', path: (ids) => `/projects/${ids.projectId}/settings`, body: () => ({ defaultTimezone: 'Asia/Tokyo', quietHours: null }) },
  ] satisfies IsolationCase[],
};
