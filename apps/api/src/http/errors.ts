import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, errorBody } from '@herald/core';
import { isUnavailableError } from '@herald/db';

/** Maps anything thrown to the error body of docs/api.md#errors. */
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
