import { createProject, type Harness } from '@herald/testing';

/** A project admin with a fresh project, and the base path of its API keys. */
export async function keysAdmin(h: Harness) {
  const admin = await h.user();
  const project = await createProject(h, admin);
  return { admin, project, base: `/projects/${project.id}/api-keys` };
}
