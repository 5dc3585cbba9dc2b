import { DatabaseError } from 'pg';
import { Prisma } from './generated/prisma/client';

/** A Prisma error with this code (P2025: record to update/delete not found, …). */
export const isPrismaError = (err: unknown, code: string): err is Prisma.PrismaClientKnownRequestError =>
  err instanceof Prisma.PrismaClientKnownRequestError && err.code === code;

/** The SQLSTATE of a raw query that Postgres refused: through `sqlPool`, or Prisma's P2010, which carries the driver's code. */
export function sqlState(err: unknown): string | undefined {
  if (err instanceof DatabaseError) return err.code;
  if (!isPrismaError(err, 'P2010')) return undefined;
  const cause = (err.meta as { driverAdapterError?: { cause?: { originalCode?: string } } } | undefined)?.driverAdapterError?.cause;
  return cause?.originalCode;
}

/** A unique violation, as Prisma reports it for its own queries (P2002) and for raw ones (SQLSTATE 23505). */
export const isUniqueViolation = (err: unknown): boolean => isPrismaError(err, 'P2002') || sqlState(err) === '23505';

/** A foreign-key violation (a referenced row is gone), for Prisma's own queries (P2003) and raw ones (23503). */
export const isForeignKeyViolation = (err: unknown): boolean => isPrismaError(err, 'P2003') || sqlState(err) === '23503';

/** A CHECK constraint refused a raw statement's row (SQLSTATE 23514); `constraint` names which. */
export const isCheckViolation = (err: unknown, constraint: string): boolean => err instanceof DatabaseError && err.code === '23514' && err.constraint === constraint;

/**
 * True for errors meaning Postgres or Redis cannot be reached right now (the API answers them 503,
 * not 500): Prisma's, node-postgres' and ioredis' ways of saying so, by name, code or message — a
 * Postgres out of connection slots (53300) included, as a busy server is. Walks
 * `cause` because Prisma's driver-adapter errors wrap the pg error.
 */
export function isUnavailableError(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 5) return false;
  const e = err as { name?: string; code?: string; message?: string; cause?: unknown; errorCode?: string };
  const name = e.name ?? '';
  const code = String(e.code ?? e.errorCode ?? '');
  const message = e.message ?? '';
  if (name === 'PrismaClientInitializationError') return true;
  if (name === 'MaxRetriesPerRequestError') return true;
  if (['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2037'].includes(code)) return true;
  if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE', '57P01', '57P03', '08006', '08001', '53300'].includes(code)) return true;
  if (
    /enableOfflineQueue|Connection is closed|Stream isn't writeable|connect ECONNREFUSED|Connection terminated|timeout exceeded when trying to connect|Can't reach database server|DatabaseNotReachable|ConnectionClosed|SocketTimeout/i.test(
      message,
    )
  )
    return true;
  const kind = (e as { cause?: { kind?: string } }).cause?.kind;
  if (kind && /DatabaseNotReachable|ConnectionClosed|SocketTimeout|TooManyConnections/.test(kind)) return true;
  return isUnavailableError(e.cause, depth + 1);
}
