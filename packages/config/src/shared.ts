import { createHash } from 'node:crypto';
import { z } from 'zod';
import { zodIssueDetails } from '@herald/core';

/** What every process reads alike: the environment's helpers, the settings all share, errors and exit. */

export type Env = Record<string, string | undefined>;

export const intFrom = (fallback: number, min = 0) => z.coerce.number().int().min(min).default(fallback);
export const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

/**
 * Outgoing mail's server, as nodemailer reads it. Checked at start: nodemailer itself is loaded by the
 * first mail, so a URL it cannot use would otherwise surface only then.
 */
export const smtpUrl = optionalString.refine((v) => v === undefined || /^smtps?:\/\/[^/]/i.test(v), 'must be an smtp:// or smtps:// URL');

export const flag = (fallback: boolean) =>
  z
    .enum(['true', 'false'])
    .default(fallback ? 'true' : 'false')
    .transform((v) => v === 'true');

export const common = {
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  DATABASE_URL: optionalString,
  REDIS_URL: optionalString,
  /**
   * A Redis Cluster instead of one Redis: `host:port,host:port,…` (some of its nodes; the rest are
   * discovered). REDIS_URL is then unused.
   */
  REDIS_CLUSTER_NODES: optionalString,
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

export interface EncryptionKeys {
  /** Key id (first 8 hex chars of the key's SHA-256) → 32-byte key. */
  keys: Map<string, Buffer>;
  /** Id of the key new ciphertexts are sealed with. */
  currentKeyId: string;
}

export interface CommonConfig {
  env: 'development' | 'production' | 'test';
  databaseUrl: string;
  redisUrl: string;
  /** A Redis Cluster's seed nodes (REDIS_CLUSTER_NODES); unset: one Redis at `redisUrl`. */
  redisClusterNodes?: { host: string; port: number }[];
  /**
   * The prefix of every Redis key (BullMQ's queues, rate limits, caches, revocation). On a cluster it is
   * a hash tag, `{herald}`, as BullMQ requires: every key is in one slot, so that no script or
   * transaction spans slots.
   */
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

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function parse<S extends z.ZodType>(schema: S, env: Env): z.infer<S> {
  const result = schema.safeParse(env);
  if (!result.success) {
    const lines = zodIssueDetails(result.error).map((d) => `  ${d.path}: ${d.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return result.data;
}

export function required(name: string, value: string | undefined, production: boolean, fallback: () => string, warnings: string[], why: string) {
  if (value !== undefined) return value;
  if (production) throw new ConfigError(`Missing required environment variable ${name}`);
  warnings.push(`${name} is not set: ${why}`);
  return fallback();
}

/** Required in every mode; `pnpm dev` supplies the localhost servers itself. */
export function requiredAlways(name: string, value: string | undefined): string {
  if (value === undefined) throw new ConfigError(`Missing required environment variable ${name}`);
  return value;
}

const keyId = (key: Buffer) => createHash('sha256').update(key).digest('hex').slice(0, 8);

function decodeKey(name: string, value: string): Buffer {
  const key = Buffer.from(value, 'base64');
  if (key.length !== 32) throw new ConfigError(`${name} must be 32 bytes encoded as base64 (got ${key.length} bytes)`);
  return key;
}

export function loadCommon(e: z.infer<z.ZodObject<typeof common>>): CommonConfig {
  const production = e.NODE_ENV === 'production';
  const warnings: string[] = [];
  const databaseUrl = requiredAlways('DATABASE_URL', e.DATABASE_URL);
  const redisClusterNodes = e.REDIS_CLUSTER_NODES === undefined ? undefined : parseClusterNodes(e.REDIS_CLUSTER_NODES);
  const redisUrl = redisClusterNodes ? (e.REDIS_URL ?? `redis://${redisClusterNodes[0].host}:${redisClusterNodes[0].port}`) : requiredAlways('REDIS_URL', e.REDIS_URL);
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
    redisClusterNodes,
    queuePrefix: redisClusterNodes && !/\{[^}]+\}/.test(e.QUEUE_PREFIX) ? `{${e.QUEUE_PREFIX}}` : e.QUEUE_PREFIX,
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

/**
 * Without SMTP_URL mails are written to the log, in production too (unset: log, as docs/api.md#projects-team-and-invites says). In
 * production the log never carries a link's token, and the API says at start that no mail leaves.
 */
export function mailTransport(chosen: 'smtp' | 'log' | undefined, smtpUrl: string | undefined): 'smtp' | 'log' {
  if (chosen === 'smtp' && !smtpUrl) throw new ConfigError('MAIL_TRANSPORT=smtp needs SMTP_URL');
  if (chosen) return chosen;
  return smtpUrl ? 'smtp' : 'log';
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

/** `host:port,host:port`: a Redis Cluster's seed nodes. */
function parseClusterNodes(value: string): { host: string; port: number }[] {
  const nodes = value.split(',').map((s) => s.trim()).filter(Boolean).map((node) => {
    const m = /^(.+):(\d{1,5})$/.exec(node);
    if (!m || Number(m[2]) < 1 || Number(m[2]) > 65535) throw new ConfigError(`REDIS_CLUSTER_NODES must be host:port pairs separated by commas (got "${node}")`);
    return { host: m[1].replace(/^\[(.*)\]$/, '$1'), port: Number(m[2]) };
  });
  if (!nodes.length) throw new ConfigError('REDIS_CLUSTER_NODES must name at least one host:port');
  return nodes;
}
