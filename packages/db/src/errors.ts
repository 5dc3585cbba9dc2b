import { Prisma } from './generated/prisma/client';

/** A Prisma error with this code (P2025: record to update/delete not found, …). */
export const isPrismaError = (err: unknown, code: string): err is Prisma.PrismaClientKnownRequestError =>
  err instanceof Prisma.PrismaClientKnownRequestError && err.code === code;

/**
 * A unique violation, as Prisma reports it for its own queries (P2002) and for raw ones (P2010,
 * with the driver's SQLSTATE 23505).
 */
export function isUniqueViolation(err: unknown): boolean {
  if (isPrismaError(err, 'P2002')) return true;
  if (!isPrismaError(err, 'P2010')) return false;
  const cause = (err.meta as { driverAdapterError?: { cause?: { originalCode?: string } } } | undefined)?.driverAdapterError?.cause;
  return cause?.originalCode === '23505';
}
