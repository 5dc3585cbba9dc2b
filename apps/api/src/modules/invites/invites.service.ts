import type { Logger } from 'pino';
import { AppError, hashSecret, randomToken } from '@herald/core';
import { auditChanges, isUniqueViolation, Prisma, writeAudit, type AuditSource, type Db, type Invite, type Role } from '@herald/db';
import type { ProjectAccess } from '../../http/access';
import { inertText, linkMail, type Mailer } from '@herald/mail';
import { toUserResponse, type AuthService } from '../auth/auth.service';
import { newAccountFields } from './invites.schema';

export const INVITE_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export const INVITE_NOT_FOUND = 'Invite not found';
export const INVALID_INVITE = 'Invalid or expired invite token';
export const ALREADY_MEMBER = 'This user is already a member of the project';
export const ALREADY_INVITED = 'A pending invite already exists for this email';
export const NOT_PENDING_RESEND = 'Only pending invites can be resent';
export const NOT_PENDING_CANCEL = 'Only pending invites can be cancelled';
export const WRONG_PASSWORD = 'Invalid password';

type InviteRow = Pick<Invite, 'id' | 'email' | 'projectId' | 'role' | 'status' | 'createdAt' | 'expiresAt'>;

export interface InviteSettings {
  appUrl: string;
}

/**
 * Invitations to a project. Tokens are random, single-use, stored as SHA-256 and only ever sent by
 * e-mail. A pending invite past its expiry is reported (and lazily stored) as `expired`.
 */
export class InvitesService {
  constructor(
    private readonly db: Db,
    private readonly mailer: Mailer,
    private readonly auth: AuthService,
    private readonly settings: InviteSettings,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  private toResponse(invite: InviteRow) {
    const expired = invite.status === 'pending' && invite.expiresAt.getTime() <= this.now();
    return {
      id: invite.id,
      email: invite.email,
      projectId: invite.projectId,
      role: invite.role,
      status: expired ? ('expired' as const) : invite.status,
      createdAt: invite.createdAt.toISOString(),
      expiresAt: invite.expiresAt.toISOString(),
    };
  }

  /** Stores `expired` on the project's pending invites past their expiry (and frees their email for a new invite). */
  private expireStale(projectId: string, tx: Prisma.TransactionClient = this.db, email?: string) {
    return tx.invite.updateMany({
      where: { projectId, status: 'pending', expiresAt: { lte: new Date(this.now()) }, ...(email ? { email } : {}) },
      data: { status: 'expired' },
    });
  }

  async create(project: ProjectAccess, inviterEmail: string, email: string, role: Role, source: AuditSource) {
    const token = randomToken(32);
    const invite = await this.db
      .$transaction(async (tx) => {
        const member = await tx.projectMember.findFirst({ where: { projectId: project.id, user: { email } }, select: { userId: true } });
        if (member) throw AppError.conflict(ALREADY_MEMBER);
        await this.expireStale(project.id, tx, email);
        const pending = await tx.invite.findFirst({ where: { projectId: project.id, email, status: 'pending' }, select: { id: true } });
        if (pending) throw AppError.conflict(ALREADY_INVITED);
        const created = await tx.invite.create({
          data: { projectId: project.id, email, role, tokenHash: hashSecret(token), expiresAt: new Date(this.now() + INVITE_TTL_MS) },
        });
        await writeAudit(tx, source, { projectId: project.id, action: 'invite.created', target: { type: 'invite', id: created.id }, changes: auditChanges(null, created, ['email', 'role', 'expiresAt']) });
        return created;
      })
      .catch((err: unknown) => {
        // The partial unique index (one pending invite per project and email) settles concurrent invites.
        if (isUniqueViolation(err)) throw AppError.conflict(ALREADY_INVITED);
        throw err;
      });
    this.sendInviteMail(invite, token, project.name, inviterEmail);
    return this.toResponse(invite);
  }

  async list(project: ProjectAccess) {
    await this.expireStale(project.id);
    const invites = await this.db.invite.findMany({ where: { projectId: project.id }, orderBy: [{ createdAt: 'desc' }, { id: 'asc' }] });
    return invites.map((i) => this.toResponse(i));
  }

  /** The project an invite belongs to (for the access check) and its address (for the mail limits); `undefined` for an unknown invite. */
  async find(inviteId: string): Promise<{ projectId: string; email: string } | undefined> {
    const invite = await this.db.invite.findUnique({ where: { id: inviteId }, select: { projectId: true, email: true } });
    return invite ?? undefined;
  }

  /** The address of the invite a token belongs to, whatever its state (for the password-check limit). */
  async emailOfToken(token: string): Promise<string | undefined> {
    const invite = await this.db.invite.findUnique({ where: { tokenHash: hashSecret(token) }, select: { email: true } });
    return invite?.email;
  }

  /** A new token (the old one dies with it), a renewed expiry, and the mail again. */
  async resend(project: ProjectAccess, inviteId: string, inviterEmail: string, source: AuditSource) {
    await this.expireStale(project.id);
    const token = randomToken(32);
    const invite = await this.db.$transaction(async (tx) => {
      const before = await tx.invite.findFirst({ where: { id: inviteId, projectId: project.id, status: 'pending' } });
      if (!before) throw AppError.conflict(NOT_PENDING_RESEND);
      const after = await tx.invite.update({ where: { id: inviteId }, data: { tokenHash: hashSecret(token), expiresAt: new Date(this.now() + INVITE_TTL_MS) } });
      await writeAudit(tx, source, { projectId: project.id, action: 'invite.resent', target: { type: 'invite', id: inviteId }, changes: auditChanges(before, after, ['expiresAt'], ['tokenHash']) });
      return after;
    });
    this.sendInviteMail(invite, token, project.name, inviterEmail);
    return this.toResponse(invite);
  }

  async cancel(project: ProjectAccess, inviteId: string, source: AuditSource) {
    await this.expireStale(project.id);
    const invite = await this.db.$transaction(async (tx) => {
      const [cancelled] = await tx.invite.updateManyAndReturn({
        where: { id: inviteId, projectId: project.id, status: 'pending' },
        data: { status: 'cancelled' },
      });
      if (!cancelled) throw AppError.conflict(NOT_PENDING_CANCEL);
      await writeAudit(tx, source, { projectId: project.id, action: 'invite.canceled', target: { type: 'invite', id: inviteId }, changes: { status: { before: 'pending', after: 'cancelled' } } });
      return cancelled;
    });
    return this.toResponse(invite);
  }

  /**
   * Joins the invite's project, creating the account when the email has none. The token is consumed
   * by a conditional update inside the transaction, so of two concurrent accepts exactly one wins.
   */
  async accept(input: { token: string; firstName?: unknown; lastName?: unknown; password: string }, source: AuditSource) {
    const tokenHash = hashSecret(input.token);
    const invite = await this.db.invite.findUnique({ where: { tokenHash } });
    if (!invite || invite.status !== 'pending' || invite.expiresAt.getTime() <= this.now()) throw AppError.badRequest(INVALID_INVITE);

    const existing = await this.db.user.findUnique({ where: { email: invite.email } });
    let account: { firstName: string; lastName: string; passwordHash: string } | undefined;
    if (existing) {
      if (!(await this.auth.verifyPassword(input.password, existing.passwordHash))) throw AppError.unauthorized(WRONG_PASSWORD);
    } else {
      const fields = newAccountFields.safeParse(input);
      if (!fields.success) throw AppError.invalid('request body', fields.error);
      account = { firstName: fields.data.firstName, lastName: fields.data.lastName, passwordHash: await this.auth.hashPassword(fields.data.password) };
    }

    const now = new Date(this.now());
    return this.db
      .$transaction(async (tx) => {
        const consumed = await tx.invite.updateMany({
          where: { id: invite.id, tokenHash, status: 'pending', expiresAt: { gt: now } },
          data: { status: 'accepted', acceptedAt: now },
        });
        if (consumed.count === 0) throw AppError.badRequest(INVALID_INVITE);

        let user = existing ?? (await tx.user.create({ data: { email: invite.email, role: invite.role, ...account! } }));
        const { before, role } = await this.join(tx, invite.projectId, user.id, invite.role);
        // The one who accepted made the change, signed in or not: a new member joined, or a member's
        // role was raised by the invite (a member whose role stays joins again, by this invite).
        const raised = before !== null && before !== role;
        await writeAudit(tx, { ...source, actor: { type: 'user', id: user.id, email: user.email } }, {
          projectId: invite.projectId,
          action: raised ? 'member.role_changed' : 'member.joined',
          target: { type: 'member', id: user.id },
          changes: { ...(before !== role && { role: { before, after: role } }), inviteId: { before: null, after: invite.id } },
        });
        // Holding project_admin in any project makes the account a project_admin.
        if (role === 'project_admin' && user.role !== 'project_admin') {
          user = await tx.user.update({ where: { id: user.id }, data: { role: 'project_admin' } });
        }
        const tokens = await this.auth.issueTokens(user.id, undefined, tx);
        return {
          user: toUserResponse(user),
          projectId: invite.projectId,
          role,
          accessToken: tokens.accessToken,
          refreshToken: tokens.refreshToken,
          expiresIn: tokens.expiresIn,
        };
      })
      .catch((err: unknown) => {
        // An account with this email was created between our check and the insert; accepting again signs in to it.
        if (isUniqueViolation(err)) throw AppError.conflict('An account with this email already exists');
        throw err;
      });
  }

  /** Adds the membership; someone already a member keeps their membership, raised to project_admin if the invite says so. */
  private async join(tx: Prisma.TransactionClient, projectId: string, userId: string, invited: Role): Promise<{ before: Role | null; role: Role }> {
    const current = await tx.projectMember.findUnique({ where: { projectId_userId: { projectId, userId } }, select: { role: true } });
    if (!current) {
      await tx.projectMember.create({ data: { projectId, userId, role: invited } });
      return { before: null, role: invited };
    }
    if (current.role === 'project_admin' || invited === 'team_member') return { before: current.role, role: current.role };
    await tx.projectMember.update({ where: { projectId_userId: { projectId, userId } }, data: { role: 'project_admin' } });
    return { before: current.role, role: 'project_admin' };
  }

  /** Sent in the background, as the password reset mail: a failed mail is logged and the invite can be resent. */
  private sendInviteMail(invite: InviteRow, token: string, projectName: string, inviterEmail: string) {
    const url = `${this.settings.appUrl}/accept-invite?token=${encodeURIComponent(token)}`;
    const mail = linkMail(
      invite.email,
      'You have been invited to a Herald project',
      // The project's name is whatever its creator typed: quoted, on one line, with anything that
      // could pass for a link (a URL, a domain name) defanged, so that it cannot carry a phishing link.
      `${inviterEmail} invited you to join the project ${inertText(projectName)} on Herald as ${invite.role}. The invitation is valid for 7 days.`,
      'Accept the invitation',
      url,
      'If you did not expect this invitation, ignore this message.',
    );
    this.mailer.send(mail).catch((err) => this.logger.error({ err: { message: (err as Error).message }, inviteId: invite.id }, 'invite mail failed'));
  }
}
