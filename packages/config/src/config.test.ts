import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ConfigError, loadApiConfig, loadMigrateConfig, loadWorkerConfig } from './index';

const prod = {
  NODE_ENV: 'production',
  DATABASE_URL: 'postgresql://db/herald',
  REDIS_URL: 'redis://redis:6379',
  JWT_SECRET: 'x'.repeat(40),
  CREDENTIALS_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
  SMTP_URL: 'smtp://mail:25',
};

describe('loadApiConfig', () => {
  it('in production, each missing secret or URL stops the process with its name', () => {
    for (const name of ['DATABASE_URL', 'REDIS_URL', 'JWT_SECRET', 'CREDENTIALS_ENCRYPTION_KEY']) {
      const env: Record<string, string | undefined> = { ...prod, [name]: undefined };
      expect(() => loadApiConfig(env)).toThrow(new ConfigError(`Missing required environment variable ${name}`));
    }
  });

  it('outside production, still needs DATABASE_URL and REDIS_URL; the secrets fall back with warnings', () => {
    const servers = { DATABASE_URL: 'postgresql://localhost/herald', REDIS_URL: 'redis://localhost:6379' };
    for (const name of ['DATABASE_URL', 'REDIS_URL'] as const) {
      expect(() => loadApiConfig({ ...servers, [name]: undefined })).toThrow(new ConfigError(`Missing required environment variable ${name}`));
      expect(() => loadWorkerConfig({ ...servers, [name]: undefined })).toThrow(new ConfigError(`Missing required environment variable ${name}`));
    }
    expect(() => loadMigrateConfig({})).toThrow(new ConfigError('Missing required environment variable DATABASE_URL'));
    const c = loadApiConfig(servers);
    expect(c).toMatchObject({ databaseUrl: servers.DATABASE_URL, redisUrl: servers.REDIS_URL });
    expect(c.jwt.secret.length).toBeGreaterThanOrEqual(32);
    expect(c.warnings.join('\n')).toMatch(/JWT_SECRET/);
    expect(c.warnings.join('\n')).toMatch(/CREDENTIALS_ENCRYPTION_KEY/);
    // the API and the worker must agree on the development key
    expect([...loadWorkerConfig(servers).encryption.keys.values()][0]).toEqual([...c.encryption.keys.values()][0]);
  });

  it('applies the documented defaults and parses overrides', () => {
    const c = loadApiConfig(prod);
    expect(c).toMatchObject({ port: 3000, queuePrefix: 'herald', appUrl: 'http://localhost:3000', jwt: { accessTtl: 900, refreshTtl: 2592000 }, rateLimits: { registerDevice: 60, send: 100, sendBulk: 10, auth: 10, signup: 30 }, logLevel: 'info' });
    const o = loadApiConfig({ ...prod, PORT: '8080', RATE_LIMIT_SEND: '5', TRUST_PROXY: '1', APP_URL: 'https://herald.example.com/' });
    expect(o).toMatchObject({ port: 8080, rateLimits: { send: 5 }, trustProxy: 1, appUrl: 'https://herald.example.com' });
    // Device attributes and audience counts, like register-device's limit.
    expect(c.rateLimits).toMatchObject({ userAttributes: 60, userAttributesBulk: 10, audienceCount: 60 });
    expect(loadApiConfig({ ...prod, RATE_LIMIT_USER_ATTRIBUTES: '7', RATE_LIMIT_USER_ATTRIBUTES_BULK: '2', RATE_LIMIT_AUDIENCE_COUNT: '9' }).rateLimits).toMatchObject({ userAttributes: 7, userAttributesBulk: 2, audienceCount: 9 });
    expect(loadWorkerConfig(prod)).toMatchObject({ deliveryMaxAttempts: 5, concurrency: 256, fcmRatePerMinute: 600_000, fcmRateBurst: 600_000 });
    // The FCM bucket holds a minute's worth unless told otherwise.
    expect(loadWorkerConfig({ ...prod, FCM_RATE_PER_MINUTE: '6000' })).toMatchObject({ fcmRatePerMinute: 6000, fcmRateBurst: 6000 });
    expect(loadWorkerConfig({ ...prod, FCM_RATE_PER_MINUTE: '6000', FCM_RATE_BURST: '100' })).toMatchObject({ fcmRatePerMinute: 6000, fcmRateBurst: 100 });
    expect(() => loadWorkerConfig({ ...prod, FCM_RATE_BURST: '0' })).toThrow(/FCM_RATE_BURST/);
  });

  it('without SMTP_URL writes mails to the log, in production too, where the log keeps no link token', () => {
    const noSmtp = { ...prod, SMTP_URL: undefined };
    expect(loadApiConfig(noSmtp).mail).toEqual({ transport: 'log', smtpUrl: undefined, from: 'Herald <no-reply@herald.local>', logLinks: false });
    expect(loadApiConfig({ ...noSmtp, MAIL_TRANSPORT: 'log' }).mail).toMatchObject({ transport: 'log', logLinks: false });
    expect(loadApiConfig(prod).mail.transport).toBe('smtp');
    expect(loadApiConfig({ ...prod, MAIL_TRANSPORT: 'log' }).mail.transport).toBe('log');
    expect(() => loadApiConfig({ ...noSmtp, MAIL_TRANSPORT: 'smtp' })).toThrow('MAIL_TRANSPORT=smtp needs SMTP_URL');
    // Outside production the log is the mailbox: its links are whole.
    expect(loadApiConfig({ ...noSmtp, NODE_ENV: 'development' }).mail).toMatchObject({ transport: 'log', logLinks: true });
  });

  it('has defaults for the hardening limits that normal use stays far below, each overridable', () => {
    const c = loadApiConfig(prod);
    expect(c).toMatchObject({
      signupEnabled: true,
      apiKeysPerProject: 100,
      webhookEndpointsPerProject: 20,
      scheduledPerProject: 10_000,
      projectsPerAccount: 20,
      rateLimits: { signinPerIp: 300, passwordCheck: 10, invites: { perProject: 100, perInviter: 100, perAddress: 20 }, projectSend: 1000, webhookTest: 10 },
      http: { headersTimeoutMs: 20_000, requestTimeoutMs: 30_000 },
      metricsToken: undefined,
    });
    expect(loadApiConfig({ ...prod, RATE_LIMIT_AUTH: '50' }).rateLimits).toMatchObject({ signinPerIp: 500, passwordCheck: 50 });
    expect(loadApiConfig({ ...prod, RATE_LIMIT_SIGNUP: '1000' }).rateLimits).toMatchObject({ signinPerIp: 10_000, passwordCheck: 10 });
    const o = loadApiConfig({ ...prod, SIGNUP_ENABLED: 'false', API_KEYS_PER_PROJECT: '3', RATE_LIMIT_SIGNIN_PER_IP: '7', RATE_LIMIT_PROJECT_SEND: '1000', METRICS_TOKEN: 's3cret' });
    expect(o).toMatchObject({ signupEnabled: false, apiKeysPerProject: 3, rateLimits: { signinPerIp: 7, projectSend: 1000 }, metricsToken: 's3cret' });
    expect(() => loadApiConfig({ ...prod, SIGNUP_ENABLED: 'no' })).toThrow(/SIGNUP_ENABLED/);
    expect(() => loadApiConfig({ ...prod, HTTP_HEADERS_TIMEOUT_MS: '60000' })).toThrow('HTTP_HEADERS_TIMEOUT_MS must not be longer than HTTP_REQUEST_TIMEOUT_MS');
    expect(loadWorkerConfig(prod)).toMatchObject({ metricsHost: '127.0.0.1', metricsToken: undefined });
    expect(loadWorkerConfig({ ...prod, METRICS_HOST: '0.0.0.0', METRICS_TOKEN: 't' })).toMatchObject({ metricsHost: '0.0.0.0', metricsToken: 't' });
  });

  it('webhooks: https only and no internal addresses by default; a day of retries; both processes mail', () => {
    const w = loadWorkerConfig(prod);
    expect(w.webhooks).toEqual({ timeoutMs: 10_000, retryBaseMs: 5000, retryMaxDelayMs: 3_600_000, retryWindowMs: 86_400_000, disableAfterMs: 86_400_000, concurrency: 16, projectConcurrency: 4 });
    expect(w.webhookAddresses).toEqual({ allowPrivate: false, httpHosts: [] });
    expect(w.mail).toEqual({ transport: 'smtp', smtpUrl: prod.SMTP_URL, from: 'Herald <no-reply@herald.local>' });
    // Its one mail carries no link: without SMTP_URL, production logs it, with a warning.
    const noSmtp = loadWorkerConfig({ ...prod, SMTP_URL: undefined });
    expect(noSmtp.mail.transport).toBe('log');
    expect(noSmtp.warnings).toEqual([expect.stringMatching(/^SMTP_URL is not set: the notice to project admins/)]);
    const dev = loadApiConfig({ ...prod, WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_HTTP_HOSTS: ' Hooks.Local , 127.0.0.1,' });
    expect(dev.webhookAddresses).toEqual({ allowPrivate: true, httpHosts: ['hooks.local', '127.0.0.1'] });
    expect(dev.warnings).toEqual([expect.stringMatching(/^WEBHOOK_ALLOW_PRIVATE is true/)]);
    expect(() => loadWorkerConfig({ ...prod, WEBHOOK_ALLOW_PRIVATE: 'yes' })).toThrow(/WEBHOOK_ALLOW_PRIVATE/);
  });

  it('refuses an SMTP_URL that is not an smtp:// or smtps:// URL, at start rather than at the first mail', () => {
    for (const bad of ['mail.example.com:587', 'http://mail.example.com', 'smtp://']) {
      expect(() => loadApiConfig({ ...prod, SMTP_URL: bad })).toThrow(/SMTP_URL.*must be an smtp:\/\/ or smtps:\/\/ URL/);
      expect(() => loadWorkerConfig({ ...prod, SMTP_URL: bad })).toThrow(/SMTP_URL.*must be an smtp:\/\/ or smtps:\/\/ URL/);
    }
    expect(loadApiConfig({ ...prod, SMTP_URL: 'smtps://user:secret@mail.example.com:465' }).mail.smtpUrl).toBe('smtps://user:secret@mail.example.com:465');
    expect(loadWorkerConfig({ ...prod, SMTP_URL: 'SMTP://mail:25' }).mail.smtpUrl).toBe('SMTP://mail:25');
  });

  it('keeps 30 days unless RETENTION_DAYS says how long (0: everything), at least the 7 days the overview counts', () => {
    expect(loadWorkerConfig(prod).retentionDays).toBe(30);
    expect(loadWorkerConfig({ ...prod, RETENTION_DAYS: '0' }).retentionDays).toBe(0);
    expect(loadWorkerConfig({ ...prod, RETENTION_DAYS: '30' }).retentionDays).toBe(30);
    expect(loadWorkerConfig({ ...prod, RETENTION_DAYS: '7' }).retentionDays).toBe(7);
    expect(() => loadWorkerConfig({ ...prod, RETENTION_DAYS: '3' })).toThrow(/RETENTION_DAYS: must be 0 \(keep everything\) or at least 7/);
    expect(() => loadWorkerConfig({ ...prod, RETENTION_DAYS: '-1' })).toThrow(/RETENTION_DAYS/);
  });

  it('keeps audit log entries 365 days unless AUDIT_RETENTION_DAYS says how long (0: forever)', () => {
    expect(loadWorkerConfig(prod).auditRetentionDays).toBe(365);
    expect(loadWorkerConfig({ ...prod, AUDIT_RETENTION_DAYS: '0' }).auditRetentionDays).toBe(0);
    expect(loadWorkerConfig({ ...prod, AUDIT_RETENTION_DAYS: '90' }).auditRetentionDays).toBe(90);
    expect(() => loadWorkerConfig({ ...prod, AUDIT_RETENTION_DAYS: '-1' })).toThrow(/AUDIT_RETENTION_DAYS/);
  });

  it('a worker warms up with 2,000 messages unless WORKER_WARM_UP_MESSAGES says otherwise (0: not at all)', () => {
    expect(loadWorkerConfig(prod).warmUpMessages).toBe(2000);
    expect(loadWorkerConfig({ ...prod, WORKER_WARM_UP_MESSAGES: '0' }).warmUpMessages).toBe(0);
    expect(loadWorkerConfig({ ...prod, WORKER_WARM_UP_MESSAGES: '500' }).warmUpMessages).toBe(500);
    expect(() => loadWorkerConfig({ ...prod, WORKER_WARM_UP_MESSAGES: '-1' })).toThrow(/WORKER_WARM_UP_MESSAGES/);
  });

  it('refuses malformed values, naming them', () => {
    expect(() => loadApiConfig({ ...prod, PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadApiConfig({ ...prod, CREDENTIALS_ENCRYPTION_KEY: 'c2hvcnQ=' })).toThrow(/CREDENTIALS_ENCRYPTION_KEY must be 32 bytes/);
  });

  it('warns about a short JWT_SECRET at start, without refusing it (docs/operations.md asks only that it be set)', () => {
    expect(loadApiConfig({ ...prod, JWT_SECRET: 'short' }).warnings).toEqual([expect.stringMatching(/^JWT_SECRET is shorter than 32 characters/)]);
    expect(loadApiConfig(prod).warnings).toEqual([]);
  });
});

it('the built API, worker and migration exit with the missing variable named, in production or not', () => {
  for (const entry of ['apps/api/dist/main.js', 'apps/worker/dist/main.js', 'packages/db/dist/migrate-cli.js']) {
    for (const mode of [{ NODE_ENV: 'production' }, {}]) {
      const res = spawnSync(process.execPath, [path.join(__dirname, '../../..', entry)], { env: { PATH: process.env.PATH, ...mode }, encoding: 'utf8', timeout: 10_000 });
      expect({ entry, status: res.status }).toEqual({ entry, status: 1 });
      expect(res.stderr).toContain('Missing required environment variable DATABASE_URL');
    }
  }
});

describe('shutdown settings', () => {
  it('API: readiness fails for 1 s, then 25 s for accepted requests; the worker has 30 s; each settable', () => {
    expect(loadApiConfig(prod).shutdown).toEqual({ readinessDelayMs: 1000, graceMs: 25_000 });
    expect(loadApiConfig({ ...prod, SHUTDOWN_READINESS_DELAY_MS: '5000', SHUTDOWN_GRACE_MS: '10000' }).shutdown).toEqual({ readinessDelayMs: 5000, graceMs: 10_000 });
    expect(loadWorkerConfig(prod).shutdownGraceMs).toBe(30_000);
    expect(loadWorkerConfig({ ...prod, SHUTDOWN_GRACE_MS: '2000' }).shutdownGraceMs).toBe(2000);
    expect(() => loadWorkerConfig({ ...prod, SHUTDOWN_GRACE_MS: '10' })).toThrow(/SHUTDOWN_GRACE_MS/);
  });
});

describe('REDIS_CLUSTER_NODES', () => {
  it('a cluster instead of REDIS_URL: its nodes parsed, the prefix made a hash tag (BullMQ on a cluster)', () => {
    const c = loadWorkerConfig({ ...prod, REDIS_URL: undefined, REDIS_CLUSTER_NODES: 'r1:7000, r2:7001,[::1]:7002' });
    expect(c.redisClusterNodes).toEqual([{ host: 'r1', port: 7000 }, { host: 'r2', port: 7001 }, { host: '::1', port: 7002 }]);
    expect(c.queuePrefix).toBe('{herald}');
    expect(loadApiConfig({ ...prod, REDIS_CLUSTER_NODES: 'r1:7000', QUEUE_PREFIX: '{mine}-x' }).queuePrefix).toBe('{mine}-x');
    expect(loadApiConfig(prod).queuePrefix).toBe('herald');
    expect(() => loadApiConfig({ ...prod, REDIS_CLUSTER_NODES: 'r1' })).toThrow(/REDIS_CLUSTER_NODES must be host:port pairs/);
  });
});
