import { createHash, randomUUID } from 'node:crypto';
import bcrypt from 'bcrypt';
import type { Logger } from 'pino';
import { AppError, hashSecret, randomToken } from '@herald/core';
import { isUniqueViolation, Prisma, type Db, type User } from '@herald/db';
import { signAccessToken } from '../../http/caller';
import type { ApiContainer } from '../../container';
import { linkMail, type Mailer } from '@herald/mail';

export const RESET_TOKEN_TTL_MS = 60 * 60 * 1000;

/**
 * bcrypt reads at most 72 bytes and ignores the rest, so a longer password is first reduced to its
 * SHA-256 (44 bytes of base64), which depends on every byte of it. Shorter ones are hashed as they are.
 */
const bcryptInput = (password: string) => (Buffer.byteLength(password, 'utf8') > 72 ? createHash('sha256').update(password, 'utf8').digest('base64') : password);

export interface AuthSettings {
  jwtSecret: string;
  accessTtl: number;
  refreshTtl: number;
  bcryptRounds: number;
  appUrl: string;
}

export interface TokenPair {
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
  tokenType: 'Bearer';
}

export const INVALID_CREDENTIALS = 'Invalid email or password';
const INVALID_REFRESH = 'Invalid refresh token';
const INVALID_RESET = 'Invalid or expired reset token';

export const toUserResponse = (u: Pick<User, 'id' | 'email' | 'firstName' | 'lastName' | 'role' | 'createdAt'>) => ({
  id: u.id,
  email: u.email,
  firstName: u.firstName,
  lastName: u.lastName,
  role: u.role,
  createdAt: u.createdAt.toISOString(),
});

export class AuthService {
  /** Compared against when the e-mail is unknown, so sign-in takes as long either way. */
  private readonly dummyHash: Promise<string>;

  constructor(
    private readonly db: Db,
    private readonly mailer: Mailer,
    private readonly settings: AuthSettings,
    private readonly logger: Logger,
  ) {
    this.dummyHash = bcrypt.hash(randomToken(), settings.bcryptRounds);
  }

  hashPassword(password: string) {
    return bcrypt.hash(bcryptInput(password), this.settings.bcryptRounds);
  }

  verifyPassword(password: string, hash: string) {
    return bcrypt.compare(bcryptInput(password), hash);
  }

  async signup(input: { email: string; password: string; firstName: string; lastName: string }) {
    const passwordHash = await this.hashPassword(input.password);
    try {
      const user = await this.db.user.create({
        data: { email: input.email, passwordHash, firstName: input.firstName, lastName: input.lastName, role: 'project_admin' },
      });
      return toUserResponse(user);
    } catch (err) {
      if (isUniqueViolation(err)) throw AppError.conflict('An account with this email already exists');
      throw err;
    }
  }

  async signin(email: string, password: string): Promise<TokenPair> {
    const user = await this.db.user.findUnique({ where: { email }, select: { id: true, passwordHash: true } });
    const ok = await this.verifyPassword(password, user?.passwordHash ?? (await this.dummyHash));
    if (!user || !ok) throw AppError.unauthorized(INVALID_CREDENTIALS);
    return this.issueTokens(user.id);
  }

  /** A new session: an access token and the first refresh token of a new family. */
  async issueTokens(userId: string, familyId: string = randomUUID(), tx: Prisma.TransactionClient = this.db): Promise<TokenPair> {
    const refreshToken = randomToken(32);
    await tx.refreshToken.create({
      data: {
        userId,
        familyId,
        tokenHash: hashSecret(refreshToken),
        expiresAt: new Date(Date.now() + this.settings.refreshTtl * 1000),
      },
    });
    return {
      accessToken: signAccessToken(this.settings.jwtSecret, userId, this.settings.accessTtl, familyId),
      refreshToken,
      expiresIn: this.settings.accessTtl,
      tokenType: 'Bearer',
    };
  }

  /**
   * Rotation with reuse detection: the presented token is consumed and its successor issued in the
   * same family. A token presented twice means it leaked (or a client raced itself); the whole
   * family is revoked, which ends the thief's session as well as the owner's.
   */
  async refresh(presented: string): Promise<TokenPair> {
    const token = await this.db.refreshToken.findUnique({ where: { tokenHash: hashSecret(presented) } });
    if (!token) throw AppError.unauthorized(INVALID_REFRESH);
    if (token.revokedAt) throw AppError.unauthorized(INVALID_REFRESH);
    if (token.usedAt) {
      await this.revokeFamily(token.familyId);
      throw AppError.unauthorized(INVALID_REFRESH);
    }
    if (token.expiresAt.getTime() <= Date.now()) throw AppError.unauthorized(INVALID_REFRESH);
    const pair = await this.db.$transaction(async (tx) => {
      const consumed = await tx.refreshToken.updateMany({ where: { id: token.id, usedAt: null, revokedAt: null }, data: { usedAt: new Date() } });
      if (consumed.count === 0) return undefined;
      return this.issueTokens(token.userId, token.familyId, tx);
    });
    if (!pair) {
      // Lost a race with another refresh of the same token: that is reuse too.
      await this.revokeFamily(token.familyId);
      throw AppError.unauthorized(INVALID_REFRESH);
    }
    return pair;
  }

  async logout(presented: string) {
    const token = await this.db.refreshToken.findUnique({ where: { tokenHash: hashSecret(presented) }, select: { familyId: true } });
    if (token) await this.revokeFamily(token.familyId);
  }

  /** Ends one session: its refresh tokens are revoked and its access tokens refused from now on. */
  private async revokeFamily(familyId: string) {
    const now = new Date();
    await this.db.$transaction([
      this.db.refreshToken.updateMany({ where: { familyId, revokedAt: null }, data: { revokedAt: now } }),
      this.db.refreshToken.updateMany({ where: { familyId, sessionEndedAt: null }, data: { sessionEndedAt: now } }),
    ]);
  }

  /**
   * Revokes every refresh token of the user and ends their sessions: their access tokens are refused
   * from the next request on. `keep` (a password change) is the caller's own session, whose access
   * token lives out its lifetime (it cannot be refreshed), so that the change does not sign them out.
   */
  private async revokeAllSessions(userId: string, tx: Prisma.TransactionClient = this.db, keep?: string) {
    const now = new Date();
    await tx.refreshToken.updateMany({ where: { userId, revokedAt: null }, data: { revokedAt: now } });
    await tx.refreshToken.updateMany({ where: { userId, sessionEndedAt: null, ...(keep ? { familyId: { not: keep } } : {}) }, data: { sessionEndedAt: now } });
  }

  async me(userId: string) {
    const user = await this.db.user.findUnique({ where: { id: userId } });
    if (!user) throw AppError.unauthorized('Invalid token');
    return toUserResponse(user);
  }

  /** Answers the same whether or not the address has an account; the mail goes out in the background. */
  async requestPasswordReset(email: string) {
    const user = await this.db.user.findUnique({ where: { email }, select: { id: true, email: true } });
    if (user) {
      const token = randomToken(32);
      await this.db.passwordResetToken.create({
        data: { userId: user.id, tokenHash: hashSecret(token), expiresAt: new Date(Date.now() + RESET_TOKEN_TTL_MS) },
      });
      const url = `${this.settings.appUrl}/reset-password?token=${encodeURIComponent(token)}`;
      const mail = linkMail(
        user.email,
        'Reset your Herald password',
        'Someone asked to reset the password of your Herald account. The link is valid for one hour.',
        'Reset your password',
        url,
        'If this was not you, ignore this message; your password stays as it is.',
      );
      this.mailer.send(mail).catch((err) => this.logger.error({ err: { message: (err as Error).message } }, 'password reset mail failed'));
    }
    return { message: 'If an account exists for this email, a password reset link has been sent' };
  }

  async resetPassword(presented: string, newPassword: string) {
    const token = await this.db.passwordResetToken.findUnique({ where: { tokenHash: hashSecret(presented) } });
    if (!token || token.usedAt || token.expiresAt.getTime() <= Date.now()) throw AppError.badRequest(INVALID_RESET);
    const passwordHash = await this.hashPassword(newPassword);
    await this.db.$transaction(async (tx) => {
      const consumed = await tx.passwordResetToken.updateMany({ where: { id: token.id, usedAt: null }, data: { usedAt: new Date() } });
      if (consumed.count === 0) throw AppError.badRequest(INVALID_RESET);
      // Any other outstanding reset link dies with this one.
      await tx.passwordResetToken.updateMany({ where: { userId: token.userId, usedAt: null }, data: { usedAt: new Date() } });
      await tx.user.update({ where: { id: token.userId }, data: { passwordHash } });
      await this.revokeAllSessions(token.userId, tx);
    });
    return { message: 'Password has been reset' };
  }

  async changePassword(userId: string, currentPassword: string, newPassword: string, sessionId?: string) {
    const user = await this.db.user.findUnique({ where: { id: userId }, select: { passwordHash: true } });
    if (!user) throw AppError.unauthorized('Invalid token');
    if (!(await this.verifyPassword(currentPassword, user.passwordHash))) throw AppError.badRequest('Current password is incorrect');
    const passwordHash = await this.hashPassword(newPassword);
    await this.db.$transaction(async (tx) => {
      await tx.user.update({ where: { id: userId }, data: { passwordHash } });
      await this.revokeAllSessions(userId, tx, sessionId);
    });
    return { message: 'Password has been changed' };
  }
}

/** The auth service of an API, from its container's config. */
export function createAuthService(c: Pick<ApiContainer, 'db' | 'mailer' | 'config' | 'logger'>): AuthService {
  const { jwt, bcryptRounds, appUrl } = c.config;
  return new AuthService(c.db, c.mailer, { jwtSecret: jwt.secret, accessTtl: jwt.accessTtl, refreshTtl: jwt.refreshTtl, bcryptRounds, appUrl }, c.logger);
}
