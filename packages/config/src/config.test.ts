import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ConfigError, loadApiConfig, loadWorkerConfig } from './index';

const prod = { NODE_ENV: 'production', DATABASE_URL: 'postgresql://db/herald', REDIS_URL: 'redis://redis:6379', JWT_SECRET: 'x'.repeat(40), CREDENTIALS_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') };

describe('loadApiConfig', () => {
  it('in production, each missing secret or URL stops the process with its name', () => {
    for (const name of ['DATABASE_URL', 'REDIS_URL', 'JWT_SECRET', 'CREDENTIALS_ENCRYPTION_KEY']) {
      const env: Record<string, string | undefined> = { ...prod, [name]: undefined };
      expect(() => loadApiConfig(env)).toThrow(new ConfigError(`Missing required environment variable ${name}`));
    }
  });

  it('outside production, falls back to localhost and development secrets with warnings', () => {
    const c = loadApiConfig({});
    expect(c.databaseUrl).toBe('postgresql://postgres@127.0.0.1:5432/herald');
    expect(c.redisUrl).toBe('redis://127.0.0.1:6379');
    expect(c.jwt.secret.length).toBeGreaterThanOrEqual(32);
    expect(c.warnings.join('\n')).toMatch(/JWT_SECRET/);
    expect(c.warnings.join('\n')).toMatch(/CREDENTIALS_ENCRYPTION_KEY/);
    // the API and the worker must agree on the development key
    expect([...loadWorkerConfig({}).encryption.keys.values()][0]).toEqual([...c.encryption.keys.values()][0]);
  });

  it('applies the contract defaults and parses overrides', () => {
    const c = loadApiConfig(prod);
    expect(c).toMatchObject({ port: 3000, queuePrefix: 'herald', appUrl: 'http://localhost:3000', jwt: { accessTtl: 900, refreshTtl: 2592000 }, rateLimits: { registerDevice: 60, send: 100, sendBulk: 10, auth: 10, signup: 30 }, logLevel: 'info' });
    const o = loadApiConfig({ ...prod, PORT: '8080', RATE_LIMIT_SEND: '5', TRUST_PROXY: '1', APP_URL: 'https://herald.example.com/' });
    expect(o).toMatchObject({ port: 8080, rateLimits: { send: 5 }, trustProxy: 1, appUrl: 'https://herald.example.com' });
    expect(loadWorkerConfig(prod)).toMatchObject({ deliveryMaxAttempts: 5, concurrency: 8 });
  });

  it('refuses malformed values, naming them', () => {
    expect(() => loadApiConfig({ ...prod, PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadApiConfig({ ...prod, CREDENTIALS_ENCRYPTION_KEY: 'c2hvcnQ=' })).toThrow(/CREDENTIALS_ENCRYPTION_KEY must be 32 bytes/);
    expect(() => loadApiConfig({ ...prod, JWT_SECRET: 'short' })).toThrow(/JWT_SECRET/);
  });
});

it('the built API exits with the missing variable named', () => {
  const entry = path.join(__dirname, '../../../apps/api/dist/main.js');
  const res = spawnSync(process.execPath, [entry], { env: { PATH: process.env.PATH, NODE_ENV: 'production' }, encoding: 'utf8', timeout: 10_000 });
  expect(res.status).toBe(1);
  expect(res.stderr).toContain('Missing required environment variable DATABASE_URL');
});
