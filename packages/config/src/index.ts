import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';

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
  METRICS_ENABLED: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
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
  SMTP_URL: optionalString,
  MAIL_FROM: z.string().default('Herald <no-reply@herald.local>'),
  RATE_LIMIT_REGISTER_DEVICE: intFrom(60, 1),
  RATE_LIMIT_SEND: intFrom(100, 1),
  RATE_LIMIT_SEND_BULK: intFrom(10, 1),
  RATE_LIMIT_AUTH: intFrom(10, 1),
  RATE_LIMIT_SIGNUP: intFrom(30, 1),
  TRUST_PROXY: optionalString,
  CORS_ORIGINS: optionalString,
});

const workerSchema = z.object({
  ...common,
  WORKER_CONCURRENCY: intFrom(8, 1),
  DELIVERY_MAX_ATTEMPTS: intFrom(5, 1),
  /** Messages per minute per project that the worker sends to FCM (FCM's default quota is 600k/min). */
  FCM_RATE_PER_MINUTE: intFrom(600_000, 1),
  METRICS_PORT: intFrom(9464),
  /** First retry delay for transient FCM errors; doubles per attempt (with jitter), capped at 5 minutes. */
  DELIVERY_RETRY_BASE_MS: intFrom(1000, 1),
  /** Messages per provider request batch. */
  DELIVERY_BATCH_SIZE: intFrom(500, 1),
  /** How long a job lock lives without renewal: a killed worker's job is taken over after this. */
  WORKER_LOCK_DURATION_MS: intFrom(30_000, 1000),
  /** How often queued notifications whose job was lost are looked for. */
  SWEEP_INTERVAL_MS: intFrom(30_000, 100),
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
  /** Messages a human should see at boot (development fallbacks in use). */
  warnings: string[];
}

export interface ApiConfig extends CommonConfig {
  port: number;
  jwt: { secret: string; accessTtl: number; refreshTtl: number };
  bcryptRounds: number;
  appUrl: string;
  mail: { smtpUrl?: string; from: string };
  rateLimits: { registerDevice: number; send: number; sendBulk: number; auth: number; signup: number };
  trustProxy?: boolean | number | string;
  corsOrigins: string[];
}

export interface WorkerConfig extends CommonConfig {
  concurrency: number;
  deliveryMaxAttempts: number;
  fcmRatePerMinute: number;
  metricsPort: number;
  retryBaseMs: number;
  batchSize: number;
  lockDurationMs: number;
  sweepIntervalMs: number;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

function parse<S extends z.ZodType>(schema: S, env: Env): z.infer<S> {
  const result = schema.safeParse(env);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
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
  return {
    env: e.NODE_ENV,
    databaseUrl,
    redisUrl,
    queuePrefix: e.QUEUE_PREFIX,
    encryption: { keys, currentKeyId: keyId(current) },
    fcmEmulatorHost: e.FCM_EMULATOR_HOST,
    logLevel: e.LOG_LEVEL,
    metricsEnabled: e.METRICS_ENABLED,
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
  return {
    ...base,
    port: e.PORT,
    jwt: { secret: jwtSecret, accessTtl: e.JWT_ACCESS_TTL, refreshTtl: e.JWT_REFRESH_TTL },
    bcryptRounds: e.BCRYPT_ROUNDS,
    appUrl: e.APP_URL.replace(/\/+$/, ''),
    mail: { smtpUrl: e.SMTP_URL, from: e.MAIL_FROM },
    rateLimits: {
      registerDevice: e.RATE_LIMIT_REGISTER_DEVICE,
      send: e.RATE_LIMIT_SEND,
      sendBulk: e.RATE_LIMIT_SEND_BULK,
      auth: e.RATE_LIMIT_AUTH,
      signup: e.RATE_LIMIT_SIGNUP,
    },
    trustProxy: parseTrustProxy(e.TRUST_PROXY),
    corsOrigins: (e.CORS_ORIGINS ?? '').split(',').map((s) => s.trim()).filter(Boolean),
  };
}

export function loadWorkerConfig(env: Env = process.env): WorkerConfig {
  const e = parse(workerSchema, env);
  return {
    ...loadCommon(e),
    concurrency: e.WORKER_CONCURRENCY,
    deliveryMaxAttempts: e.DELIVERY_MAX_ATTEMPTS,
    fcmRatePerMinute: e.FCM_RATE_PER_MINUTE,
    metricsPort: e.METRICS_PORT,
    retryBaseMs: e.DELIVERY_RETRY_BASE_MS,
    batchSize: e.DELIVERY_BATCH_SIZE,
    lockDurationMs: e.WORKER_LOCK_DURATION_MS,
    sweepIntervalMs: e.SWEEP_INTERVAL_MS,
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
