import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/prisma/client';

export interface DbOptions {
  /** Connections in this process's pool. */
  poolSize?: number;
  /** How long a query waits for a connection or for Postgres to answer a connect, before failing (→ 503). */
  connectTimeoutMs?: number;
  /** Server-side cap on any one statement. */
  statementTimeoutMs?: number;
}

export type Db = PrismaClient;

/** The Prisma client over node-postgres. Short timeouts so that a dead database answers 503 quickly. */
export function createDb(databaseUrl: string, options: DbOptions = {}): Db {
  const adapter = new PrismaPg({
    connectionString: databaseUrl,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 3000,
    statement_timeout: options.statementTimeoutMs ?? 15_000,
    idleTimeoutMillis: 30_000,
  });
  return new PrismaClient({ adapter });
}
