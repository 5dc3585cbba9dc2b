import type { Request } from 'express';
import type Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { AppError, hashSecret } from '@herald/core';
import type { Db, Role } from '@herald/db';
import type { ProjectCache } from '../project-cache/project-cache';
import { uuid, type ApiKeyScope } from '@herald/schemas';

export type Caller =
  /** `sessionId`: the refresh-token family the access token was issued with (absent in older tokens). */
  | { type: 'user'; userId: string; email: string; role: Role; sessionId?: string }
  /** An API key acts as its project; the project comes with the key's lookup. */
  | { type: 'apiKey'; keyId: string; projectId: string; project: { id: string; name: string; ownerId: string }; keyName: string; scopes: readonly ApiKeyScope[] };

export type AuthMode = 'none' | 'jwt' | 'key' | 'keyOrJwt' | 'optionalJwt';

/** The caller's credential as rate limits count it: the API key, or the user behind the JWT. */
export const credentialOf = (caller: Caller) => (caller.type === 'apiKey' ? `key:${caller.keyId}` : `user:${caller.userId}`);

export const AUTH_MESSAGES = {
  missing: 'Missing or invalid authorization header',
  invalidToken: 'Invalid token',
  expired: 'Token has expired',
  invalidKey: 'Invalid API key',
  disabledKey: 'API key is disabled',
  expiredKey: 'API key has expired',
} as const;

/** A token's subject is a user id, by the same rule as ids in requests. */
const userId = uuid('sub');

interface AccessClaims {
  sub: string;
  typ: 'access';
  /** The session: the refresh-token family the token was issued with. */
  sid?: string;
}

export function signAccessToken(secret: string, userId: string, ttlSeconds: number, sessionId: string): string {
  // A token id of its own (`jti`): two tokens of one session issued in the same second (a sign-in, then
  // a refresh) would otherwise be the same string.
  return jwt.sign({ typ: 'access', sid: sessionId }, secret, { algorithm: 'HS256', subject: userId, expiresIn: ttlSeconds, jwtid: randomUUID() });
}

interface BearerRow {
  id: string;
  email: string;
  role: Role;
  ended: boolean;
}

/** The `X-Api-Key` header's value (the first, if sent twice). */
function presentedKey(req: Request): string | undefined {
  const raw = req.headers['x-api-key'];
  return Array.isArray(raw) ? raw[0] : raw;
}

/** How often at most an API key's lastUsedAt is written, across all instances (the field is accurate to this). */
const LAST_USED_WRITE_INTERVAL_MS = 60_000;

/** The Redis key whose `SET NX` lets one instance a minute write a key's lastUsedAt. */
export const lastUsedGateKey = (prefix: string, keyId: string) => `${prefix}:key-used:${keyId}`;

/**
 * Resolves who is calling from the request's credentials. An API key is found by its SHA-256 in its
 * project's snapshot (`ProjectCache`), which is revalidated against Redis on every request, so that
 * disabling or deleting a key is seen by every instance at the very next request.
 */
export class Authenticator {
  private readonly lastUsedWritten = new Map<string, number>();
  private readonly keyHashes = new WeakMap<Request, string>();

  constructor(
    private readonly db: Db,
    private readonly jwtSecret: string,
    private readonly cache: ProjectCache,
    /** The gate of lastUsedAt writes, shared by every instance, and the prefix of its keys. */
    private readonly gate: { redis: Redis; prefix: string },
    private readonly now: () => number = Date.now,
  ) {}

  async resolve(req: Request, mode: AuthMode): Promise<Caller | undefined> {
    if (mode === 'none') return undefined;
    if ((mode === 'key' || mode === 'keyOrJwt') && req.headers['x-api-key'] !== undefined) {
      return this.fromApiKey(req, presentedKey(req));
    }
    if (mode === 'key') throw AppError.unauthorized(AUTH_MESSAGES.invalidKey);
    if (mode === 'optionalJwt' && !req.headers.authorization) return undefined;
    return this.fromBearer(req.headers.authorization);
  }

  /**
   * The presented credential as `credentialOf` names it, when it is known without I/O: an API key
   * whose id this instance has cached. Only a hint: the key may have been disabled since, which
   * `resolve` finds out.
   */
  credentialHint(req: Request, mode: AuthMode): string | undefined {
    if (mode !== 'key' && mode !== 'keyOrJwt') return undefined;
    const key = presentedKey(req);
    if (!key) return undefined;
    const known = this.cache.knownKey(this.keyHash(req, key));
    return known && `key:${known.keyId}`;
  }

  private async fromBearer(header: string | undefined): Promise<Caller> {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
    if (!match) throw AppError.unauthorized(AUTH_MESSAGES.missing);
    let claims: AccessClaims;
    try {
      claims = jwt.verify(match[1], this.jwtSecret, { algorithms: ['HS256'] }) as AccessClaims;
    } catch (err) {
      if (err instanceof jwt.TokenExpiredError) throw AppError.unauthorized(AUTH_MESSAGES.expired);
      throw AppError.unauthorized(AUTH_MESSAGES.invalidToken);
    }
    // Only this API signs tokens, but a `sub` that is no id must be a 401 rather than a failed query.
    if (claims.typ !== 'access' || typeof claims.sub !== 'string' || !userId.safeParse(claims.sub).success) throw AppError.unauthorized(AUTH_MESSAGES.invalidToken);
    const sessionId = claims.sid;
    if (sessionId !== undefined && (typeof sessionId !== 'string' || !userId.safeParse(sessionId).success)) throw AppError.unauthorized(AUTH_MESSAGES.invalidToken);
    // The user is read on every bearer request anyway; whether the token's session ended (logout, a
    // password change or reset) is read in the same query, so a session ended through any instance is
    // refused by all of them at the next request, at no extra round trip. (Tokens from before sessions
    // were named carry no `sid`, and live out their lifetime.)
    const [user] = await this.db.$queryRaw<BearerRow[]>`
      SELECT u."id", u."email", u."role"::text AS "role",
             EXISTS (
               SELECT 1 FROM "RefreshToken" r WHERE r."familyId" = ${sessionId ?? null}::uuid AND r."sessionEndedAt" IS NOT NULL
             ) AS "ended"
      FROM "User" u WHERE u."id" = ${claims.sub}::uuid`;
    if (!user || user.ended) throw AppError.unauthorized(AUTH_MESSAGES.invalidToken);
    return { type: 'user', userId: user.id, email: user.email, role: user.role, sessionId };
  }

  private async fromApiKey(req: Request, raw: string | undefined): Promise<Caller> {
    if (!raw) throw AppError.unauthorized(AUTH_MESSAGES.invalidKey);
    const hash = this.keyHash(req, raw);
    const known = await this.cache.findKey(hash);
    if (!known) throw AppError.unauthorized(AUTH_MESSAGES.invalidKey);
    const snapshot = await this.cache.snapshot(req, known.projectId);
    const key = await snapshot.apiKey(hash);
    if (!key) throw AppError.unauthorized(AUTH_MESSAGES.invalidKey);
    if (!key.enabled) throw AppError.unauthorized(AUTH_MESSAGES.disabledKey);
    if (key.expiresAt && key.expiresAt.getTime() <= this.now()) throw AppError.unauthorized(AUTH_MESSAGES.expiredKey);
    this.touch(key.id);
    return {
      type: 'apiKey',
      keyId: key.id,
      projectId: key.projectId,
      project: { id: key.projectId, name: key.name, ownerId: key.ownerId },
      keyName: key.keyName,
      scopes: key.scopes as ApiKeyScope[],
    };
  }

  /** SHA-256 of the presented key, computed once per request. */
  private keyHash(req: Request, raw: string): string {
    let hash = this.keyHashes.get(req);
    if (hash === undefined) this.keyHashes.set(req, (hash = hashSecret(raw.trim())));
    return hash;
  }

  /**
   * Records lastUsedAt off the request path, at most once a minute per key across all instances: the
   * instance that wins a Redis `SET NX` with a minute's expiry writes it. Each instance also remembers
   * its own last attempt, so that a busy key costs no Redis command per request.
   */
  private touch(keyId: string) {
    const now = this.now();
    const last = this.lastUsedWritten.get(keyId) ?? 0;
    if (now - last < LAST_USED_WRITE_INTERVAL_MS) return;
    this.lastUsedWritten.set(keyId, now);
    if (this.lastUsedWritten.size > 10_000) this.lastUsedWritten.clear();
    this.gate.redis
      .set(lastUsedGateKey(this.gate.prefix, keyId), '1', 'PX', LAST_USED_WRITE_INTERVAL_MS, 'NX')
      .then(async (won) => {
        if (won === 'OK') await this.db.apiKey.updateMany({ where: { id: keyId }, data: { lastUsedAt: new Date(now) } });
      })
      .catch(() => undefined);
  }
}
