import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { common, ConfigError, flag, intFrom, loadCommon, mailTransport, optionalString, parse, required, smtpUrl, type CommonConfig, type Env } from './shared';

/** The API's settings (docs/operations.md#configuration). */

const apiSchema = z.object({
  ...common,
  PORT: intFrom(3000),
  JWT_SECRET: optionalString,
  JWT_ACCESS_TTL: intFrom(900, 1),
  JWT_REFRESH_TTL: intFrom(30 * 24 * 3600, 1),
  /** bcrypt cost factor for passwords. */
  BCRYPT_ROUNDS: intFrom(10, 4),
  APP_URL: z.url().default('http://localhost:3000'),
  SMTP_URL: smtpUrl,
  MAIL_FROM: z.string().default('Herald <no-reply@herald.local>'),
  /**
   * `smtp` (needs SMTP_URL) or `log` (each mail written to the log: whole outside production, where
   * the log is a development instance's mailbox; with its link's token redacted in production).
   * Unset: smtp when SMTP_URL is set; else log (in production with a warning at start).
   */
  MAIL_TRANSPORT: z.enum(['smtp', 'log']).optional(),
  /** `false`: POST /auth/signup answers 403; accounts are created only by accepting an invite. */
  SIGNUP_ENABLED: flag(true),
  RATE_LIMIT_REGISTER_DEVICE: intFrom(60, 1),
  RATE_LIMIT_SEND: intFrom(100, 1),
  RATE_LIMIT_SEND_BULK: intFrom(10, 1),
  RATE_LIMIT_AUTH: intFrom(10, 1),
  RATE_LIMIT_SIGNUP: intFrom(30, 1),
  /**
   * Sign-ins per IP per minute, whatever the e-mail. Default: ten times the larger of RATE_LIMIT_AUTH
   * and RATE_LIMIT_SIGNUP, so that a client may sign in to every account it may create, ten times.
   */
  RATE_LIMIT_SIGNIN_PER_IP: z.coerce.number().int().min(1).optional(),
  /** Password checks per user per minute (change-password, accepting an invite into an existing account). Default: RATE_LIMIT_AUTH. */
  RATE_LIMIT_PASSWORD_CHECK: z.coerce.number().int().min(1).optional(),
  /** Invite mails (new invites and resends) per hour: per project, per inviting user, per invited address. */
  RATE_LIMIT_INVITES_PER_PROJECT: intFrom(100, 1),
  RATE_LIMIT_INVITES_PER_INVITER: intFrom(100, 1),
  RATE_LIMIT_INVITES_PER_ADDRESS: intFrom(20, 1),
  /** Sends (send and send-bulk together) per project per minute, over all its credentials. 0: no such limit. */
  RATE_LIMIT_PROJECT_SEND: intFrom(1000, 0),
  /** Per credential per minute: PATCH /push/users/{userId}/attributes, POST /push/users/attributes (up to 1,000 users each), POST /push/audience/count. */
  RATE_LIMIT_USER_ATTRIBUTES: intFrom(60, 1),
  RATE_LIMIT_USER_ATTRIBUTES_BULK: intFrom(10, 1),
  RATE_LIMIT_AUDIENCE_COUNT: intFrom(60, 1),
  /** POST /push/events requests (up to 1,000 events each) per credential per minute; 0: off. */
  RATE_LIMIT_EVENTS: intFrom(600, 0),
  /** API keys a project may hold. */
  API_KEYS_PER_PROJECT: intFrom(100, 1),
  /** Scheduled notifications (not yet started) a project may hold. */
  SCHEDULED_PER_PROJECT: intFrom(10_000, 1),
  /** Projects one account may own. */
  PROJECTS_PER_ACCOUNT: intFrom(20, 1),
  /** Webhook endpoints a project may hold. */
  WEBHOOK_ENDPOINTS_PER_PROJECT: intFrom(20, 1),
  /** `POST /projects/{id}/webhooks/{id}/test` per project per minute. */
  RATE_LIMIT_WEBHOOK_TEST: intFrom(10, 1),
  /** How long a client may take to send a request's headers, and the whole request (Node's headersTimeout / requestTimeout). */
  HTTP_HEADERS_TIMEOUT_MS: intFrom(20_000, 1000),
  HTTP_REQUEST_TIMEOUT_MS: intFrom(30_000, 1000),
  /**
   * On SIGTERM: how long /ready answers 503 while requests are still served, so that load balancers
   * stop routing here before the listener closes (at least a readiness probe's period on Kubernetes).
   */
  SHUTDOWN_READINESS_DELAY_MS: intFrom(1000, 0),
  /** On SIGTERM: how long requests already accepted may take to finish before the process exits anyway (exit 1). */
  SHUTDOWN_GRACE_MS: intFrom(25_000, 1000),
  TRUST_PROXY: optionalString,
  CORS_ORIGINS: optionalString,
});

export interface ApiConfig extends CommonConfig {
  port: number;
  jwt: { secret: string; accessTtl: number; refreshTtl: number };
  bcryptRounds: number;
  appUrl: string;
  /**
   * `log`: mails are written to the log. `logLinks`: with their links whole, and link tokens kept in
   * every log line — only outside production, where the log is the mailbox an invite or a password
   * reset is followed from. In production every line's link tokens are redacted.
   */
  mail: { transport: 'smtp' | 'log'; smtpUrl?: string; from: string; logLinks: boolean };
  signupEnabled: boolean;
  rateLimits: {
    registerDevice: number;
    send: number;
    sendBulk: number;
    auth: number;
    signup: number;
    signinPerIp: number;
    passwordCheck: number;
    /** Per hour. */
    invites: { perProject: number; perInviter: number; perAddress: number };
    /** Per project per minute; 0: off. */
    projectSend: number;
    webhookTest: number;
    userAttributes: number;
    userAttributesBulk: number;
    audienceCount: number;
    /** Per credential per minute; 0: off. */
    events: number;
  };
  apiKeysPerProject: number;
  webhookEndpointsPerProject: number;
  scheduledPerProject: number;
  projectsPerAccount: number;
  http: { headersTimeoutMs: number; requestTimeoutMs: number };
  /** SIGTERM: /ready fails for `readinessDelayMs` first; accepted requests get `graceMs` to finish. */
  shutdown: { readinessDelayMs: number; graceMs: number };
  trustProxy?: boolean | number | string;
  corsOrigins: string[];
}

function parseTrustProxy(value: string | undefined): boolean | number | string | undefined {
  if (value === undefined) return undefined;
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}

function apiMail(chosen: 'smtp' | 'log' | undefined, smtpUrl: string | undefined, from: string, production: boolean): ApiConfig['mail'] {
  const transport = mailTransport(chosen, smtpUrl);
  return { transport, smtpUrl, from, logLinks: transport === 'log' && !production };
}

export function loadApiConfig(env: Env = process.env): ApiConfig {
  const e = parse(apiSchema, env);
  const base = loadCommon(e);
  const jwtSecret = required(
    'JWT_SECRET',
    e.JWT_SECRET,
    base.env === 'production',
    () => randomBytes(32).toString('base64url'),
    base.warnings,
    'using an ephemeral secret; sessions end when the process restarts',
  );
  // Said at start rather than refused: a secret is required (docs/api.md#access-tokens), not its length.
  if (jwtSecret.length < 32) base.warnings.push('JWT_SECRET is shorter than 32 characters: use a long random secret, e.g. `openssl rand -base64 48`');
  if (e.HTTP_HEADERS_TIMEOUT_MS > e.HTTP_REQUEST_TIMEOUT_MS) throw new ConfigError('HTTP_HEADERS_TIMEOUT_MS must not be longer than HTTP_REQUEST_TIMEOUT_MS');
  return {
    ...base,
    port: e.PORT,
    jwt: { secret: jwtSecret, accessTtl: e.JWT_ACCESS_TTL, refreshTtl: e.JWT_REFRESH_TTL },
    bcryptRounds: e.BCRYPT_ROUNDS,
    appUrl: e.APP_URL.replace(/\/+$/, ''),
    mail: apiMail(e.MAIL_TRANSPORT, e.SMTP_URL, e.MAIL_FROM, base.env === 'production'),
    signupEnabled: e.SIGNUP_ENABLED,
    rateLimits: {
      registerDevice: e.RATE_LIMIT_REGISTER_DEVICE,
      send: e.RATE_LIMIT_SEND,
      sendBulk: e.RATE_LIMIT_SEND_BULK,
      auth: e.RATE_LIMIT_AUTH,
      signup: e.RATE_LIMIT_SIGNUP,
      signinPerIp: e.RATE_LIMIT_SIGNIN_PER_IP ?? 10 * Math.max(e.RATE_LIMIT_AUTH, e.RATE_LIMIT_SIGNUP),
      passwordCheck: e.RATE_LIMIT_PASSWORD_CHECK ?? e.RATE_LIMIT_AUTH,
      invites: { perProject: e.RATE_LIMIT_INVITES_PER_PROJECT, perInviter: e.RATE_LIMIT_INVITES_PER_INVITER, perAddress: e.RATE_LIMIT_INVITES_PER_ADDRESS },
      projectSend: e.RATE_LIMIT_PROJECT_SEND,
      webhookTest: e.RATE_LIMIT_WEBHOOK_TEST,
      userAttributes: e.RATE_LIMIT_USER_ATTRIBUTES,
      userAttributesBulk: e.RATE_LIMIT_USER_ATTRIBUTES_BULK,
      audienceCount: e.RATE_LIMIT_AUDIENCE_COUNT,
      events: e.RATE_LIMIT_EVENTS,
    },
    apiKeysPerProject: e.API_KEYS_PER_PROJECT,
    webhookEndpointsPerProject: e.WEBHOOK_ENDPOINTS_PER_PROJECT,
    scheduledPerProject: e.SCHEDULED_PER_PROJECT,
    projectsPerAccount: e.PROJECTS_PER_ACCOUNT,
    http: { headersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_MS, requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS },
    shutdown: { readinessDelayMs: e.SHUTDOWN_READINESS_DELAY_MS, graceMs: e.SHUTDOWN_GRACE_MS },
    trustProxy: parseTrustProxy(e.TRUST_PROXY),
    corsOrigins: (e.CORS_ORIGINS ?? '').split(',').map((s) => s.trim()).filter(Boolean),
  };
}
