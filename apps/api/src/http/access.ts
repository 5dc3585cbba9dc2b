import { AppError } from '@herald/core';
import type { Db, Role } from '@herald/db';
import type { Caller } from './caller';

/** What a route needs of the caller within the project: any membership, the admin role, or ownership. */
export type ProjectNeed = 'member' | 'project_admin' | 'owner';

export interface ProjectAccess {
  id: string;
  name: string;
  ownerId: string;
  /** The caller's membership role; `null` for an API key, which acts as the project itself. */
  role: Role | null;
  isOwner: boolean;
}

export interface AccessDenial {
  status: number;
  message: string;
}

export const PROJECT_NOT_FOUND = 'Project not found';

/**
 * The tenancy boundary. A project the caller does not belong to does not exist for them (404); a
 * member whose role may not act gets 403 (or the route's own denial: removing a member answers 401, see
 * docs/api.md#roles-and-permissions).
 */
export class ProjectGate {
  constructor(private readonly db: Db) {}

  async check(caller: Caller, projectId: string, need: ProjectNeed = 'member', denial?: AccessDenial): Promise<ProjectAccess> {
    if (caller.type === 'apiKey') {
      if (caller.projectId !== projectId) throw AppError.forbidden('This API key belongs to another project');
      if (need !== 'member') throw AppError.forbidden();
      return { ...caller.project, role: null, isOwner: false };
    }
    const membership = await this.db.projectMember.findUnique({
      where: { projectId_userId: { projectId, userId: caller.userId } },
      select: { role: true, project: { select: { id: true, name: true, ownerId: true } } },
    });
    if (!membership) throw AppError.notFound(PROJECT_NOT_FOUND);
    const access: ProjectAccess = { ...membership.project, role: membership.role, isOwner: membership.project.ownerId === caller.userId };
    const allowed = need === 'member' || (need === 'owner' ? access.isOwner : access.role === 'project_admin' || access.isOwner);
    if (!allowed) {
      if (denial) throw new AppError(denial.status, denial.message);
      throw AppError.forbidden(need === 'owner' ? 'Only the project owner may do this' : 'This action requires the project_admin role');
    }
    return access;
  }
}
