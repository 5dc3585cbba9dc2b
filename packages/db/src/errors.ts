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
