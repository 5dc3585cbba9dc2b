import { z } from 'zod';
import { common, optionalString, parse, requiredAlways, type Env } from './shared';

/** `pnpm db:migrate` needs only the database. */
export function loadMigrateConfig(env: Env = process.env): { databaseUrl: string } {
  const e = parse(z.object({ NODE_ENV: common.NODE_ENV, DATABASE_URL: optionalString }), env);
  return { databaseUrl: requiredAlways('DATABASE_URL', e.DATABASE_URL) };
}
