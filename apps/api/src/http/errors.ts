import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, errorBody } from '@herald/core';

/**
 * True for errors meaning Postgres or Redis cannot be reached right now: answered 503, not 500.
 * Walks `cause` because Prisma's driver-adapter errors wrap the pg error.
 */
export function isUnavailableError(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 5) return false;
  const e = err as { name?: string; code?: string; message?: string; cause?: unknown; errorCode?: string };
  const name = e.name ?? '';
  const code = String(e.code ?? e.errorCode ?? '');
  const message = e.message ?? '';
  if (name === 'PrismaClientInitializationError') return true;
  if (name === 'MaxRetriesPerRequestError') return true;
  if (['P1001', 'P1002', 'P1008', 'P1017', 'P2024'].includes(code)) return true;
  if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE', '57P01', '57P03', '08006', '08001'].includes(code)) return true;
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

/** Maps anything thrown to the contract's error body. */
export function toAppError(err: unknown): AppError | undefined {
  if (err instanceof AppError) return err;
  const e = err as { type?: string; status?: number; statusCode?: number; message?: string };
  // body-parser errors carry `type` and `status`
  switch (e?.type) {
    case 'entity.parse.failed':
      return AppError.badRequest('Malformed JSON in request body');
    case 'entity.too.large':
      return new AppError(413, 'Request body is too large');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError(415, 'Unsupported content encoding');
    case 'request.aborted':
      return AppError.badRequest('Request aborted');
  }
  if (isUnavailableError(err)) return AppError.unavailable();
  const status = e?.status ?? e?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) return new AppError(status, e.message || 'Bad request');
  return undefined;
}

export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(AppError.notFound(`Cannot ${req.method} ${req.path}`));
};

export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  const appError = toAppError(err);
  if (appError) {
    if (appError.status >= 500) req.log?.warn({ err: { name: (err as Error)?.name, message: (err as Error)?.message } }, 'dependency unavailable');
    if (appError.headers) res.set(appError.headers);
  } else {
    req.log?.error({ err }, 'unhandled error');
  }
  const status = appError?.status ?? 500;
  const message = appError?.message ?? 'Internal server error';
  if (res.headersSent) return void res.end();
  res.status(status).json(errorBody(status, message, appError?.details));
};
