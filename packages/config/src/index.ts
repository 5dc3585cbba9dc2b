import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { zodIssueDetails } from '@herald/core';

/**
 * Configuration is read from the environment once, at boot, and nowhere else (docs/operations.md#configuration).
 * Outside production a newcomer needs no env file: Postgres and Redis default to localhost and
 * secrets to development values, each with a warning. In production every secret is required.
 */

type Env = Record<string, string | undefined>;


const intFrom = (fallback: number, min = 0) => z.coerce.number().int().min(min).default(fallback);
const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

/**
 * Outgoing mail's server, as nodemailer reads it. Checked at start: nodemailer itself is loaded by the
 * first mail, so a URL it cannot use would otherwise surface only then.
 */
const smtpUrl = optionalString.refine((v) => v === undefined || /^smtps?:\/\/[^/]/i.test(v), 'must be an smtp:// or smtps:// URL');

const flag = (fallback: boolean) =>
  z
    .enum(['true', 'false'])
    .default(fallback ? 'true' : 'false')
    .transform((v) => v === 'true');

const common = {
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  DATABASE_URL: optionalString,
  REDIS_URL: optionalString,
  QUEUE_PREFIX: z.string().min(1).default('herald'),
  CREDENTIALS_ENCRYPTION_KEY: optionalString,
  /** Old keys still accepted for decryption during a rotation: comma-separated base64 keys. */
  CREDENTIALS_ENCRYPTION_KEYS_PREVIOUS: optionalString,
  FCM_EMULATOR_HOST: optionalString,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  METRICS_ENABLED: flag(true),
  /** When set, `/metrics` answers only requests bearing `Authorization: Bearer <token>`. */
  METRICS_TOKEN: optionalString,
  /** Webhooks may call loopback, private, link-local and metadata addresses (development and tests only). */
  WEBHOOK_ALLOW_PRIVATE: flag(false),
  /** Comma-separated host names webhooks may call over plain http; every other webhook URL must be https. */
  WEBHOOK_HTTP_HOSTS: optionalString,
};

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
  /** Sends (send and send-bulk together) per project per minute, over all its credentials. Unset or 0: no such limit. */
  RATE_LIMIT_PROJECT_SEND: intFrom(0, 0),
  /** Per credential per minute: PATCH /push/users/{userId}/attributes, POST /push/users/attributes (up to 1,000 users each), POST /push/audience/count. */
  RATE_LIMIT_USER_ATTRIBUTES: intFrom(60, 1),
  RATE_LIMIT_USER_ATTRIBUTES_BULK: intFrom(10, 1),
  RATE_LIMIT_AUDIENCE_COUNT: intFrom(60, 1),
  /** API keys a project may hold. */
  API_KEYS_PER_PROJECT: intFrom(100, 1),
  /** How long a client may take to send a request's headers, and the whole request (Node's headersTimeout / requestTimeout). */
  HTTP_HEADERS_TIMEOUT_MS: intFrom(20_000, 1000),
  HTTP_REQUEST_TIMEOUT_MS: intFrom(30_000, 1000),
  TRUST_PROXY: optionalString,
  CORS_ORIGINS: optionalString,
});

const workerSchema = z.object({
  ...common,
  /** Jobs (notifications) a worker delivers at once; their database work is done together. */
  WORKER_CONCURRENCY: intFrom(256, 1),
  DELIVERY_MAX_ATTEMPTS: intFrom(5, 1),
  /** Messages per minute per project that the worker sends to FCM (FCM's default quota is 600k/min). */
  FCM_RATE_PER_MINUTE: intFrom(600_000, 1),
  /** Messages a project may send at once, before it is paced at FCM_RATE_PER_MINUTE; default: a minute's worth. */
  FCM_RATE_BURST: z.coerce.number().int().min(1).optional(),
  METRICS_PORT: intFrom(9464),
  /** Address the metrics server binds to: loopback unless a container (or the operator) says otherwise. */
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  /** First retry delay for transient FCM errors; doubles per attempt (with jitter), capped at 5 minutes. */
  DELIVERY_RETRY_BASE_MS: intFrom(1000, 1),
  /** Messages per provider request batch. */
  DELIVERY_BATCH_SIZE: intFrom(500, 1),
  /** Messages a fresh worker sends to a loopback stand-in for FCM to warm its code up, while idle; 0: none. */
  WORKER_WARM_UP_MESSAGES: intFrom(2_000, 0),
  /** How long a job lock lives without renewal: a killed worker's job is taken over after this. */
  WORKER_LOCK_DURATION_MS: intFrom(30_000, 1000),
  /** How often queued notifications whose job was lost are looked for. */
  SWEEP_INTERVAL_MS: intFrom(30_000, 100),
  /**
   * Days a final notification (with its deliveries) and a webhook event are kept; 0 keeps everything.
   * At least 7: the dashboard's overview counts the last 7 days, and idempotency keys last 24 hours.
   */
  RETENTION_DAYS: intFrom(0).refine((d) => d === 0 || d >= 7, 'must be 0 (keep everything) or at least 7'),
  /** The worker mails a project's admins when it disables a failing webhook endpoint. */
  SMTP_URL: smtpUrl,
  MAIL_FROM: z.string().default('Herald <no-reply@herald.local>'),
  MAIL_TRANSPORT: z.enum(['smtp', 'log']).optional(),
  /** Webhook requests: the whole exchange, connect to the last byte read. */
  WEBHOOK_TIMEOUT_MS: intFrom(10_000, 100),
  /** First delay before a failed webhook attempt is retried; doubles per attempt with jitter. */
  WEBHOOK_RETRY_BASE_MS: intFrom(5_000, 1),
  WEBHOOK_RETRY_MAX_DELAY_MS: intFrom(3_600_000, 1),
  /** How long after its event a webhook delivery is still retried. */
  WEBHOOK_RETRY_WINDOW_MS: intFrom(24 * 3_600_000, 1),
  /** An endpoint whose attempts have all failed for this long is disabled (and its admins told). */
  WEBHOOK_DISABLE_AFTER_MS: intFrom(24 * 3_600_000, 1),
  WEBHOOK_CONCURRENCY: intFrom(16, 1),
});

export interface EncryptionKeys {
  /** Key id (first 8 hex chars of the key's SHA-256) → 32-byte key. */
  keys: Map<string, Buffer>;
  /** Id of the key new ciphertexts are sealed with. */
  currentKeyId: string;
}

interface CommonConfig {
  env: 'development' | 'production' | 'test';
  databaseUrl: string;
  redisUrl: string;
  queuePrefix: string;
  encryption: EncryptionKeys;
  fcmEmulatorHost?: string;
  logLevel: string;
  metricsEnabled: boolean;
  /** Bearer token `/metrics` requires, when set. */
  metricsToken?: string;
  webhookAddresses: { allowPrivate: boolean; httpHosts: string[] };
  /** Messages a human should see at boot (development fallbacks in use). */
  warnings: string[];
}

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
    userAttributes: number;
    userAttributesBulk: number;
    audienceCount: number;
  };
  apiKeysPerProject: number;
  http: { headersTimeoutMs: number; requestTimeoutMs: number };
  trustProxy?: boolean | number | string;
  corsOrigins: string[];
}

export interface WorkerConfig extends CommonConfig {
  concurrency: number;
  deliveryMaxAttempts: number;
  fcmRatePerMinute: number;
  /** The FCM token bucket's size: what a project may send at once. */
  fcmRateBurst: number;
  metricsPort: number;
  metricsHost: string;
  retryBaseMs: number;
  batchSize: number;
  /** Messages of the idle warm-up at start (0: none). */
  warmUpMessages: number;
  lockDurationMs: number;
  sweepIntervalMs: number;
  /** Days final notifications and webhook events are kept (0: forever). */
  retentionDays: number;
  mail: { transport: 'smtp' | 'log'; smtpUrl?: string; from: string };
  webhooks: { timeoutMs: number; retryBaseMs: number; retryMaxDelayMs: number; retryWindowMs: number; disableAfterMs: number; concurrency: number };
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

function parse<S extends z.ZodType>(schema: S, env: Env): z.infer<S> {
  const result = schema.safeParse(env);
  if (!result.success) {
    const lines = zodIssueDetails(result.error).map((d) => `  ${d.path}: ${d.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return result.data;
}

function required(name: string, value: string | undefined, production: boolean, fallback: () => string, warnings: string[], why: string) {
  if (value !== undefined) return value;
  if (production) throw new ConfigError(`Missing required environment variable ${name}`);
  warnings.push(`${name} is not set: ${why}`);
  return fallback();
}

/** Required in every mode; `pnpm dev` supplies the localhost servers itself. */
function requiredAlways(name: string, value: string | undefined): string {
  if (value === undefined) throw new ConfigError(`Missing required environment variable ${name}`);
  return value;
}

const keyId = (key: Buffer) => createHash('sha256').update(key).digest('hex').slice(0, 8);

function decodeKey(name: string, value: string): Buffer {
  const key = Buffer.from(value, 'base64');
  if (key.length !== 32) throw new ConfigError(`${name} must be 32 bytes encoded as base64 (got ${key.length} bytes)`);
  return key;
}

function loadCommon(e: z.infer<z.ZodObject<typeof common>>): CommonConfig {
  const production = e.NODE_ENV === 'production';
  const warnings: string[] = [];
  const databaseUrl = requiredAlways('DATABASE_URL', e.DATABASE_URL);
  const redisUrl = requiredAlways('REDIS_URL', e.REDIS_URL);
  // The API encrypts and the worker decrypts, so the development key must be the same in both
  // processes: a fixed, publicly known value, never acceptable in production.
  const current = decodeKey(
    'CREDENTIALS_ENCRYPTION_KEY',
    required(
      'CREDENTIALS_ENCRYPTION_KEY',
      e.CREDENTIALS_ENCRYPTION_KEY,
      production,
      () => createHash('sha256').update('herald-development-only-credentials-key').digest('base64'),
      warnings,
      'provider credentials are encrypted with a public development key',
    ),
  );
  const keys = new Map<string, Buffer>([[keyId(current), current]]);
  for (const old of (e.CREDENTIALS_ENCRYPTION_KEYS_PREVIOUS ?? '').split(',').filter(Boolean)) {
    const key = decodeKey('CREDENTIALS_ENCRYPTION_KEYS_PREVIOUS', old.trim());
    keys.set(keyId(key), key);
  }
  if (e.WEBHOOK_ALLOW_PRIVATE) warnings.push('WEBHOOK_ALLOW_PRIVATE is true: webhooks may call loopback, private and cloud-metadata addresses (development and tests only)');
  return {
    env: e.NODE_ENV,
    databaseUrl,
    redisUrl,
    queuePrefix: e.QUEUE_PREFIX,
    encryption: { keys, currentKeyId: keyId(current) },
    fcmEmulatorHost: e.FCM_EMULATOR_HOST,
    logLevel: e.LOG_LEVEL,
    metricsEnabled: e.METRICS_ENABLED,
    metricsToken: e.METRICS_TOKEN,
    webhookAddresses: {
      allowPrivate: e.WEBHOOK_ALLOW_PRIVATE,
      httpHosts: (e.WEBHOOK_HTTP_HOSTS ?? '').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean),
    },
    warnings,
  };
}

function parseTrustProxy(value: string | undefined): boolean | number | string | undefined {
  if (value === undefined) return undefined;
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}

/**
 * Without SMTP_URL mails are written to the log, in production too (the contract: "unset: log"). In
 * production the log never carries a link's token, and the API says at start that no mail leaves.
 */
function mailTransport(chosen: 'smtp' | 'log' | undefined, smtpUrl: string | undefined): 'smtp' | 'log' {
  if (chosen === 'smtp' && !smtpUrl) throw new ConfigError('MAIL_TRANSPORT=smtp needs SMTP_URL');
  if (chosen) return chosen;
  return smtpUrl ? 'smtp' : 'log';
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
  // Said at start rather than refused: the contract asks only that the secret be set.
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
      userAttributes: e.RATE_LIMIT_USER_ATTRIBUTES,
      userAttributesBulk: e.RATE_LIMIT_USER_ATTRIBUTES_BULK,
      audienceCount: e.RATE_LIMIT_AUDIENCE_COUNT,
    },
    apiKeysPerProject: e.API_KEYS_PER_PROJECT,
    http: { headersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_MS, requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS },
    trustProxy: parseTrustProxy(e.TRUST_PROXY),
    corsOrigins: (e.CORS_ORIGINS ?? '').split(',').map((s) => s.trim()).filter(Boolean),
  };
}

export function loadWorkerConfig(env: Env = process.env): WorkerConfig {
  const e = parse(workerSchema, env);
  const base = loadCommon(e);
  // The worker's one mail (a webhook endpoint disabled) carries no secret link: the log is an
  // acceptable transport for it, in production too, with a warning.
  const transport = mailTransport(e.MAIL_TRANSPORT, e.SMTP_URL);
  if (transport === 'log' && base.env === 'production') base.warnings.push('SMTP_URL is not set: the notice to project admins that a failing webhook endpoint was disabled is written to the log');
  return {
    ...base,
    concurrency: e.WORKER_CONCURRENCY,
    deliveryMaxAttempts: e.DELIVERY_MAX_ATTEMPTS,
    fcmRatePerMinute: e.FCM_RATE_PER_MINUTE,
    fcmRateBurst: e.FCM_RATE_BURST ?? e.FCM_RATE_PER_MINUTE,
    metricsPort: e.METRICS_PORT,
    metricsHost: e.METRICS_HOST,
    retryBaseMs: e.DELIVERY_RETRY_BASE_MS,
    batchSize: e.DELIVERY_BATCH_SIZE,
    warmUpMessages: e.WORKER_WARM_UP_MESSAGES,
    lockDurationMs: e.WORKER_LOCK_DURATION_MS,
    sweepIntervalMs: e.SWEEP_INTERVAL_MS,
    retentionDays: e.RETENTION_DAYS,
    mail: { transport, smtpUrl: e.SMTP_URL, from: e.MAIL_FROM },
    webhooks: {
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      retryBaseMs: e.WEBHOOK_RETRY_BASE_MS,
      retryMaxDelayMs: e.WEBHOOK_RETRY_MAX_DELAY_MS,
      retryWindowMs: e.WEBHOOK_RETRY_WINDOW_MS,
      disableAfterMs: e.WEBHOOK_DISABLE_AFTER_MS,
      concurrency: e.WEBHOOK_CONCURRENCY,
    },
  };
}

/** `pnpm db:migrate` needs only the database. */
export function loadMigrateConfig(env: Env = process.env): { databaseUrl: string } {
  const e = parse(z.object({ NODE_ENV: common.NODE_ENV, DATABASE_URL: optionalString }), env);
  return { databaseUrl: requiredAlways('DATABASE_URL', e.DATABASE_URL) };
}

/** For process entry points: the config, or a message naming what is wrong and exit code 1. */
export function loadOrExit<T>(load: () => T): T {
  try {
    return load();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(err.message);
    process.exit(1);
  }
}
