import pino, { type Logger, type LoggerOptions } from 'pino';
import { redactLinkTokens } from '@herald/mail';

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

/** Link tokens are redacted in every line, as in logged mails (`@herald/mail`). */
export { redactLinkTokens };

/**
 * The API's logger options: redacted paths, and link tokens removed from every serialised line unless
 * `keepLinkTokens` (a development instance whose mails are written to the log: its links must be
 * followed from there, so the log holds them anyway).
 */
export function loggerOptions(level: string, { keepLinkTokens = false } = {}): LoggerOptions {
  return {
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    base: { service: 'herald-api' },
    ...(keepLinkTokens ? {} : { hooks: { streamWrite: redactLinkTokens } }),
  };
}

export function createLogger(level: string, destination?: pino.DestinationStream, options?: { keepLinkTokens?: boolean }): Logger {
  return pino(loggerOptions(level, options), destination);
}
