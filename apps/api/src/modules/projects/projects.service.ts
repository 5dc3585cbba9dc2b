import { AppError } from '@herald/core';
import { auditChanges, writeAudit, type AuditSource, type Db, type Project } from '@herald/db';
import type { ProjectAccess } from '../../http/access';

export const OWNER_CANNOT_BE_REMOVED = 'The project owner cannot be removed';
export const MEMBER_NOT_FOUND = 'Member not found';
export const tooManyProjects = (max: number) => `An account may own at most ${max} projects: delete one first`;

const toProjectResponse = (p: Pick<Project, 'id' | 'name' | 'createdAt'>) => ({ id: p.id, name: p.name, createdAt: p.createdAt.toISOString() });

/** Projects and their teams. Access (membership, role, ownership) is checked by the gate before any call. */
export class ProjectsService {
  constructor(
    private readonly db: Db,
    /** Projects one account may own (PROJECTS_PER_ACCOUNT): every per-project bound multiplies with them. */
    private readonly maxPerAccount = Infinity,
  ) {}

  /** The creator becomes the owner and a project_admin member, in one transaction. */
  async create(ownerId: string, name: string, source: AuditSource) {
    const project = await this.db.$transaction(async (tx) => {
      // The owner's row is locked, so that concurrent creations cannot pass the cap together.
      await tx.$queryRaw`SELECT 1 FROM "User" WHERE "id" = ${ownerId}::uuid FOR UPDATE`;
      if ((await tx.project.count({ where: { ownerId } })) >= this.maxPerAccount) throw AppError.conflict(tooManyProjects(this.maxPerAccount));
      const created = await tx.project.create({ data: { name, ownerId, members: { create: { userId: ownerId, role: 'project_admin' } } } });
      await writeAudit(tx, source, { projectId: created.id, action: 'project.created', target: { type: 'project', id: created.id }, changes: auditChanges(null, created, ['name', 'ownerId']) });
      return created;
    });
    return toProjectResponse(project);
  }

  async listFor(userId: string) {
    const memberships = await this.db.projectMember.findMany({
      where: { userId },
      select: { role: true, project: { select: { id: true, name: true, createdAt: true, ownerId: true } } },
      orderBy: [{ project: { createdAt: 'asc' } }, { projectId: 'asc' }],
    });
    return memberships.map(({ role, project }) => ({ ...toProjectResponse(project), role, isOwner: project.ownerId === userId }));
  }

  async get(projectId: string) {
    const project = await this.db.project.findUnique({ where: { id: projectId }, select: { id: true, name: true, createdAt: true } });
    if (!project) throw AppError.notFound('Project not found');
    return toProjectResponse(project);
  }

  /**
   * One DELETE, so one transaction: the foreign keys cascade to members, invites, API keys,
   * templates, push config, providers, devices, notifications and their deliveries.
   */
  async remove(project: ProjectAccess, source: AuditSource) {
    await this.db.$transaction(async (tx) => {
      const before = await tx.project.findFirst({ where: { id: project.id, ownerId: project.ownerId } });
      if (!before) throw AppError.notFound('Project not found');
      await tx.project.delete({ where: { id: project.id } });
      // The project's entries outlive it: its deletion is the last of them.
      await writeAudit(tx, source, { projectId: project.id, action: 'project.deleted', target: { type: 'project', id: project.id }, changes: auditChanges(before, null, ['name', 'ownerId']) });
    });
    return { message: 'Project deleted' };
  }

  async team(project: ProjectAccess) {
    const members = await this.db.projectMember.findMany({
      where: { projectId: project.id },
      select: { role: true, joinedAt: true, user: { select: { id: true, email: true, firstName: true, lastName: true } } },
      orderBy: [{ joinedAt: 'asc' }, { userId: 'asc' }],
    });
    return members.map(({ role, joinedAt, user }) => ({
      userId: user.id,
      email: user.email,
      firstName: user.firstName,
      lastName: user.lastName,
      role,
      isOwner: user.id === project.ownerId,
      joinedAt: joinedAt.toISOString(),
    }));
  }

  async removeMember(project: ProjectAccess, userId: string, source: AuditSource) {
    if (userId === project.ownerId) throw AppError.badRequest(OWNER_CANNOT_BE_REMOVED);
    await this.db.$transaction(async (tx) => {
      const removed = await tx.projectMember.deleteMany({ where: { projectId: project.id, userId } });
      if (removed.count === 0) throw AppError.notFound(MEMBER_NOT_FOUND);
      await writeAudit(tx, source, { projectId: project.id, action: 'member.removed', target: { type: 'member', id: userId } });
    });
    return { message: 'Member removed' };
  }
}
