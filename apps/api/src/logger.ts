import pino, { type Logger, type LoggerOptions } from 'pino';

/** Paths never written to a log line: credentials, tokens, passwords and key material. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  // A link followed to the API: `?token=` is in the URL (redacted below) and in the parsed query.
  'req.query.token',
  '*.password',
  '*.newPassword',
  '*.currentPassword',
  '*.token',
  '*.refreshToken',
  '*.accessToken',
  '*.privateKey',
  '*.private_key',
  '*.key',
  '*.apiKey',
  '*.secret',
];

/**
 * A link's token (`…/reset-password?token=…`, `…/accept-invite?token=…`) wherever it appears in a
 * line: in a mail written to the log, in the URL of a request that followed such a link to the API,
 * in an error message. The value ends where a URL's query value ends.
 */
const LINK_TOKEN = /([?&;]token=)[^&\s"'\\<>#;]+/gi;

export const redactLinkTokens = (text: string) => text.replace(LINK_TOKEN, '$1[redacted]');

/** The API's logger options: redacted paths, and link tokens removed from every serialised line. */
export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    base: { service: 'herald-api' },
    hooks: { streamWrite: redactLinkTokens },
  };
}

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(loggerOptions(level), destination);
}
