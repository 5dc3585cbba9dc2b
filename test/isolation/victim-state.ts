import type { Harness } from '../harness';

/** Written by the API as a key is used (the victim's own key, in setup), not by anything a stranger does. */
const VOLATILE = new Set(['ApiKey.lastUsedAt']);

/**
 * Every row of the victim's, in every table of the database: what the attacks of the isolation table
 * must leave exactly as it was. Which rows are the victim's is decided per column, and a table that
 * none of the rules covers fails the test, so that a new table cannot go unchecked.
 */
export async function victimState(h: Harness, victim: { projectId: string; userIds: string[] }): Promise<Record<string, unknown[]>> {
  const columns = await h.db.$queryRaw<{ table: string; column: string }[]>`
    SELECT table_name AS "table", column_name AS "column" FROM information_schema.columns
    WHERE table_schema = current_schema() AND table_name <> '_prisma_migrations'`;
  const tables = new Map<string, Set<string>>();
  for (const { table, column } of columns) (tables.get(table) ?? tables.set(table, new Set()).get(table)!).add(column);

  const state: Record<string, unknown[]> = {};
  for (const [table, cols] of [...tables].sort(([a], [b]) => a.localeCompare(b))) {
    const byProject = (where: string) => [where, victim.projectId] as const;
    const byUsers = (where: string) => [where, victim.userIds] as const;
    let query: readonly [string, unknown];
    if (table === 'Project') query = byProject(`"id" = $1::uuid`);
    else if (table === 'User') query = byUsers(`"id" = ANY($1::uuid[])`);
    else if (cols.has('projectId')) query = byProject(`"projectId" = $1::uuid`);
    else if (cols.has('endpointId')) query = byProject(`"endpointId" IN (SELECT "id" FROM "WebhookEndpoint" WHERE "projectId" = $1::uuid)`);
    else if (cols.has('deliveryId'))
      query = byProject(`"deliveryId" IN (SELECT d."id" FROM "WebhookDelivery" d JOIN "WebhookEndpoint" e ON e."id" = d."endpointId" WHERE e."projectId" = $1::uuid)`);
    else if (cols.has('notificationId')) query = byProject(`"notificationId" IN (SELECT "id" FROM "Notification" WHERE "projectId" = $1::uuid)`);
    else if (cols.has('userId')) query = byUsers(`"userId" = ANY($1::uuid[])`);
    else throw new Error(`isolation: no rule says which rows of "${table}" are the victim's; add one to victimState`);
    const rows = await h.db.$queryRawUnsafe<Record<string, unknown>[]>(`SELECT * FROM "${table}" WHERE ${query[0]}`, query[1]);
    state[table] = rows
      .map((row) => JSON.stringify(Object.fromEntries(Object.entries(row).filter(([column]) => !VOLATILE.has(`${table}.${column}`))), (_k, v) => (typeof v === 'bigint' ? String(v) : v)))
      .sort();
  }
  return state;
}
