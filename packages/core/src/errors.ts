import { STATUS_CODES } from 'node:http';
import type { ZodError } from 'zod';

export interface ErrorDetail {
  path: string;
  message: string;
}

/** zod's issues as error details: the dotted path of each offending field and its message. */
export const zodIssueDetails = (error: ZodError): ErrorDetail[] =>
  error.issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message }));

/**
 * The one error type of Herald. Thrown anywhere, shaped once by the API's error middleware into
 * `{ statusCode, message, error }` (+ `details` for validation errors) (docs/api.md#errors).
 */
export class AppError extends Error {
  override name = 'AppError';

  constructor(
    readonly status: number,
    message: string,
    readonly details?: ErrorDetail[],
    /** Extra response headers, e.g. Retry-After. */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }

  static badRequest(message: string, details?: ErrorDetail[]) {
    return new AppError(400, message, details);
  }
  /** A 400 for input that failed its zod schema: `Invalid <where>: <first path>: <message>`, every issue in `details`. */
  static invalid(where: string, error: ZodError) {
    const details = zodIssueDetails(error);
    const first = details[0];
    return AppError.badRequest(first ? `Invalid ${where}: ${first.path ? `${first.path}: ` : ''}${first.message}` : `Invalid ${where}`, details);
  }
  static unauthorized(message: string) {
    return new AppError(401, message);
  }
  static forbidden(message = 'You do not have permission to perform this action') {
    return new AppError(403, message);
  }
  static notFound(message: string) {
    return new AppError(404, message);
  }
  static conflict(message: string) {
    return new AppError(409, message);
  }
  static unavailable(message = 'Service temporarily unavailable') {
    return new AppError(503, message);
  }
}

/** The standard reason phrase of a status, used as the `error` field of every error body. */
export const reasonPhrase = (status: number) => STATUS_CODES[status] ?? 'Error';

export interface ErrorBody {
  statusCode: number;
  message: string;
  error: string;
  details?: ErrorDetail[];
}

export function errorBody(status: number, message: string, details?: ErrorDetail[]): ErrorBody {
  return details ? { statusCode: status, message, error: reasonPhrase(status), details } : { statusCode: status, message, error: reasonPhrase(status) };
}
