import { generateApiKey, hashSecret } from '@herald/core';
import type { Harness, Session } from './harness';
import { unique } from './harness';

/**
 * Direct database fixtures for tests of other modules, so that a template or provider test does not
 * depend on the project endpoints. The project endpoints have their own tests.
 */
export async function createProject(h: Harness, owner: Session, name = unique('project')) {
  const project = await h.db.project.create({
    data: { name, ownerId: owner.id, members: { create: { userId: owner.id, role: 'project_admin' } } },
  });
  return project;
}

export async function addMember(h: Harness, projectId: string, member: Session, role: 'team_member' | 'project_admin' = 'team_member') {
  await h.db.projectMember.create({ data: { projectId, userId: member.id, role } });
}

export async function createApiKey(h: Harness, projectId: string, enabled = true) {
  const { key, prefix } = generateApiKey();
  const row = await h.db.apiKey.create({ data: { projectId, name: unique('key'), prefix, keyHash: hashSecret(key), enabled } });
  return { id: row.id, key };
}

/** An owner with a project and an API key of it. */
export async function tenant(h: Harness) {
  const owner = await h.user();
  const project = await createProject(h, owner);
  const apiKey = await createApiKey(h, project.id);
  return { owner, project, apiKey };
}
export type Tenant = Awaited<ReturnType<typeof tenant>>;
