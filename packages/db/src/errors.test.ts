import net from 'node:net';
import Redis from 'ioredis';
import { closeDb, createDb, sqlPool } from './client';
import { isUnavailableError } from './errors';

/** A local port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('isUnavailableError', () => {
  it('is true for Postgres that cannot be reached, through Prisma and through node-postgres', async () => {
    const db = createDb(`postgresql://postgres@127.0.0.1:${await closedPort()}/postgres`, { connectTimeoutMs: 1000 });
    try {
      const raw = await sqlPool(db).query('SELECT 1').catch((err: unknown) => err);
      expect(isUnavailableError(raw)).toBe(true);
      const prisma = await db.project.count().catch((err: unknown) => err);
      expect(isUnavailableError(prisma)).toBe(true);
    } finally {
      await closeDb(db);
    }
  });

  it('is true for Postgres out of connection slots (53300), through Prisma and through node-postgres', async () => {
    // A role allowed no connection is refused as a full server refuses everyone: "too many connections".
    const admin = createDb(process.env.DATABASE_URL!, { poolSize: 1 });
    await sqlPool(admin).query(`DO $$ BEGIN CREATE ROLE herald_no_slots LOGIN CONNECTION LIMIT 0; EXCEPTION WHEN duplicate_object THEN NULL; END $$`);
    await closeDb(admin);
    const url = new URL(process.env.DATABASE_URL!);
    url.username = 'herald_no_slots';
    const db = createDb(url.toString(), { connectTimeoutMs: 1000 });
    try {
      const raw = await sqlPool(db).query('SELECT 1').catch((err: unknown) => err);
      expect((raw as { code?: string }).code).toBe('53300');
      expect(isUnavailableError(raw)).toBe(true);
      const prisma = await db.project.count().catch((err: unknown) => err);
      expect(isUnavailableError(prisma)).toBe(true);
    } finally {
      await closeDb(db);
    }
  });

  it('is true for Redis that cannot be reached, without an offline queue', async () => {
    const redis = new Redis(`redis://127.0.0.1:${await closedPort()}`, { enableOfflineQueue: false, lazyConnect: true, retryStrategy: () => null });
    redis.on('error', () => undefined);
    try {
      expect(isUnavailableError(await redis.get('x').catch((err: unknown) => err))).toBe(true);
    } finally {
      redis.disconnect();
    }
  });

  it('is false for a statement Postgres refuses, and for anything else', async () => {
    const db = createDb(process.env.DATABASE_URL!, { poolSize: 1 });
    try {
      const refused = await sqlPool(db).query('SELECT 1 / 0').catch((err: unknown) => err);
      expect(isUnavailableError(refused)).toBe(false);
      expect(isUnavailableError(new Error('Template not found'))).toBe(false);
      expect(isUnavailableError(undefined)).toBe(false);
    } finally {
      await closeDb(db);
    }
  });
});
