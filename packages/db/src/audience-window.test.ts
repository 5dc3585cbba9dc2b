import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import type { AudienceFilter } from '@herald/core';
import { audiencePageStatement } from './audience-sql';
import { AudienceWindow, bigIntToUuid, uuidToBigInt } from './audience-window';

/**
 * The id windows of a filtered audience's pages, against a real Postgres: streamed in windows, the
 * audience is every matching device once and in id order; and a page of a 10 % tag reads from the
 * tags' GIN index only the devices that match (no row read and dropped), where the plain keyset page
 * walks the id index and drops the other nine in ten. Plans are taken as the worker plans
 * (apps/worker/src/delivery/sql.ts: WORKER_PLANNER), on a table just analysed.
 */
const client = new Client({ connectionString: process.env.DATABASE_URL });
const projectId = randomUUID();
const DEVICES = 50_000;
const PAGE = 500;
const pro: AudienceFilter = { field: 'tags.plan', op: 'eq', value: 'pro' };

beforeAll(async () => {
  await client.connect();
  const ownerId = randomUUID();
  await client.query(`INSERT INTO "User" ("id", "email", "passwordHash", "firstName", "lastName", "updatedAt") VALUES ($1, $2, 'x', 'A', 'B', now())`, [ownerId, `${ownerId}@example.test`]);
  await client.query(`INSERT INTO "Project" ("id", "name", "ownerId", "updatedAt") VALUES ($1, 'windows', $2, now())`, [projectId, ownerId]);
  // Every tenth device is on the pro plan.
  await client.query(
    `INSERT INTO "Device" ("id", "projectId", "userId", "deviceToken", "provider", "platform", "tags", "createdAt", "updatedAt", "lastSeenAt")
     SELECT gen_random_uuid(), $1::uuid, 'w-' || u, 'fcm-token-w-' || u || '-' || repeat('x', 120), 'fcm', 'android',
            jsonb_build_object('plan', CASE WHEN u % 10 = 0 THEN 'pro' ELSE 'free' END), now(), now(), now()
     FROM generate_series(1, $2::int) u`,
    [projectId, DEVICES],
  );
  // As a table at rest is: the GIN index's pending list merged (VACUUM), statistics taken.
  await client.query('VACUUM ANALYZE "Device"');
  await client.query('SET enable_seqscan = off');
  await client.query('SET random_page_cost = 1.1');
}, 60_000);
afterAll(async () => {
  await client.query('DELETE FROM "Device" WHERE "projectId" = $1', [projectId]);
  await client.end();
});

it('a uuid and its number convert both ways, in the order Postgres sorts uuids', async () => {
  const ids = Array.from({ length: 50 }, () => randomUUID());
  for (const id of ids) expect(bigIntToUuid(uuidToBigInt(id))).toBe(id);
  expect(bigIntToUuid(0n)).toBe('00000000-0000-0000-0000-000000000000');
  const { rows } = await client.query<{ id: string }>('SELECT t."id"::text AS id FROM unnest($1::uuid[]) AS t("id") ORDER BY t."id"', [ids]);
  expect(rows.map((r) => r.id)).toEqual([...ids].sort((a, b) => (uuidToBigInt(a) < uuidToBigInt(b) ? -1 : 1)));
});

it('streamed in windows, a filtered audience is every matching device once, in id order, in pages that fill up', async () => {
  const window = new AudienceWindow(PAGE);
  const seen: string[] = [];
  const sizes: number[] = [];
  let after: string | undefined;
  for (let pages = 0; pages < 500; pages++) {
    const before = window.before(after);
    const { rows } = await client.query<{ id: string }>(audiencePageStatement(projectId, pro, { after, before, limit: PAGE, columns: ['id'] }));
    window.observe(after, before, rows.length, rows[rows.length - 1]?.id);
    seen.push(...rows.map((r) => r.id));
    sizes.push(rows.length);
    const full = rows.length === PAGE;
    if (!full && before === undefined) break;
    after = full ? rows[rows.length - 1].id : before;
  }
  const { rows: all } = await client.query<{ id: string }>(`SELECT "id"::text AS id FROM "Device" WHERE "projectId" = $1 AND "tags" @> '{"plan":"pro"}' ORDER BY "id"`, [projectId]);
  expect(all).toHaveLength(DEVICES / 10);
  expect(seen).toEqual(all.map((r) => r.id));
  // A few small windows while the density is learnt, then pages of about a page each.
  const settled = sizes.slice(3, -1);
  expect(settled.length).toBeGreaterThan(0);
  expect(settled.reduce((a, b) => a + b, 0) / settled.length).toBeGreaterThan(PAGE * 0.7);
  expect(sizes.length).toBeLessThan((DEVICES / 10 / PAGE) * 2 + 5);
});

/** The plan of a page as the worker runs it, with the rows each node read and dropped. */
async function plan(statement: { text: string; values?: unknown[] }) {
  const { rows } = await client.query({ text: `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${statement.text}`, values: statement.values });
  const nodes: Record<string, unknown>[] = [];
  const walk = (node: Record<string, unknown>) => {
    nodes.push(node);
    for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
  };
  walk(rows[0]['QUERY PLAN'][0].Plan);
  const dropped = nodes.reduce((sum, n) => sum + Number(n['Rows Removed by Filter'] ?? 0) + Number(n['Rows Removed by Index Recheck'] ?? 0), 0);
  const heapRead = nodes.filter((n) => n['Relation Name'] === 'Device').reduce((sum, n) => sum + Number(n['Actual Rows'] ?? 0) + Number(n['Rows Removed by Filter'] ?? 0), 0);
  return { nodes, dropped, heapRead, indexes: nodes.map((n) => n['Index Name']).filter(Boolean) };
}

it('a window of a 10 % tag is answered from the tags index: only matching devices are read', async () => {
  // A window in the middle of the id space holding about a page of matches (10 × PAGE devices).
  const from = 1n << 127n;
  const after = bigIntToUuid(from);
  const before = bigIntToUuid(from + ((1n << 128n) / BigInt(DEVICES)) * BigInt(PAGE * 10));
  const windowed = await plan(audiencePageStatement(projectId, pro, { after, before, limit: PAGE, columns: ['id', 'userId', 'platform'] }));
  expect(windowed.indexes).toContain('Device_projectId_tags_idx');
  expect(windowed.dropped).toBe(0);
  // The plain keyset page over the same devices walks the id index and drops nine in ten.
  const keyset = await plan(audiencePageStatement(projectId, pro, { after, limit: PAGE, columns: ['id', 'userId', 'platform'] }));
  expect(keyset.dropped).toBeGreaterThan(PAGE * 5);
  expect(windowed.heapRead).toBeLessThan(keyset.heapRead / 3);
});
