import type { Client, Pool } from 'pg';
import { waitUntil } from './wait';

/**
 * Telling a client's connections apart in Postgres: a DATABASE_URL whose sessions carry
 * `application_name`, and how many such sessions Postgres lists.
 */
export function databaseUrlNamed(name: string, databaseUrl = process.env.DATABASE_URL!): string {
  const url = new URL(databaseUrl);
  url.searchParams.set('application_name', name);
  return url.toString();
}

export async function sessionsNamed(observer: Client | Pool, name: string): Promise<number> {
  const { rows } = await observer.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1', [name]);
  return rows[0].n;
}

/** Waits until Postgres lists no session named `name`: a backend leaves a moment after its client closed the connection. */
export const sessionsGone = (observer: Client | Pool, name: string) =>
  waitUntil(async () => (await sessionsNamed(observer, name)) === 0, 3000, `the sessions named ${name} to end`);
