import { STATUS_CODES } from 'node:http';

export interface ErrorDetail {
  path: string;
  message: string;
}

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
