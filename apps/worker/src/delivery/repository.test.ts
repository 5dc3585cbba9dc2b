import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { plannerSettings, sqlPool } from '@herald/db';
import { startApi, tenant, type Harness } from '@herald/testing';
import { RELEASE_DUE_SQL } from './fan-out';
import { INDEX_ORDER, WORKER_PLANNER } from './sql';
import { DeliveryRepository } from './repository';

let h: Harness;
let repository: DeliveryRepository;
beforeAll(async () => {
  h = await startApi();
  repository = new DeliveryRepository(sqlPool(h.db), 30_000);
});
afterAll(() => h.close());

describe('DeliveryRepository.record', () => {
  it('writes the outcomes of pending rows only, answers which it wrote, and finishes the notification once', async () => {
    const t = await tenant(h);
    for (const token of ['a', 'b']) await h.db.device.create({ data: { projectId: t.project.id, userId: 'u1', deviceToken: `${token}-${randomUUID()}`, provider: 'fcm', platform: 'android' } });
    const n = await h.db.notification.create({ data: { projectId: t.project.id, templateId: randomUUID(), userIds: ['u1'], variables: {}, recipients: 1 } });
    const { rows } = await repository.plan([{ notificationId: n.id, claimant: 'test' }]);
    expect(rows).toHaveLength(2);
    const [a, b] = rows.map((r) => r.id);
    const provider = randomUUID();
    const sent = (deliveryId: string, providerMessageId: string) => ({ kind: 'sent' as const, deliveryId, providerConfigId: provider, providerMessageId });

    const first = await repository.record([sent(a, 'm-a')]);
    expect([...first.written]).toEqual([a]);
    expect(first.finished).toEqual([]);

    // `a` is final now: its second outcome (a copy of the work answered late) is skipped, `b` is written.
    const second = await repository.record([sent(a, 'm-a-again'), sent(b, 'm-b')]);
    expect([...second.written]).toEqual([b]);
    expect(second.finished).toEqual([{ notificationId: n.id, projectId: t.project.id, status: 'completed' }]);

    // Nothing is pending any more: nothing is written, and the notification does not finish twice.
    expect(await repository.record([sent(b, 'm-b-again')])).toEqual({ written: new Set(), finished: [] });
    const stored = await h.db.delivery.findMany({ where: { notificationId: n.id }, orderBy: { providerMessageId: 'asc' } });
    expect(stored.map((d) => [d.status, d.providerMessageId])).toEqual([
      ['sent', 'm-a'],
      ['sent', 'm-b'],
    ]);
    expect(await h.db.notification.findUniqueOrThrow({ where: { id: n.id } })).toMatchObject({ status: 'completed', sent: 2, failed: 0, pendingDeliveries: 0 });
  });
});

describe('Delivery rows', () => {
  /**
   * Postgres updates a row in place, touching no index (a HOT update), only when the update changes no
   * column that an index names, in its key or its WHERE. A delivery is claimed and then written once
   * per attempt: if those writes were not HOT, each would add entries to every index of the table.
   */
  const WRITTEN_ONCE = ['id', 'notificationId', 'userId', 'deviceId', 'notBefore', 'rolloutStage', 'heldForStage'];

  it('have no index that names a column the claim or the outcome write changes', async () => {
    const { rows } = await sqlPool(h.db).query<{ index: string; columns: string[]; predicate: string | null }>(
      `SELECT c.relname AS "index", array(SELECT a.attname FROM pg_attribute a WHERE a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey))::text[] AS "columns",
         pg_get_expr(i.indpred, i.indrelid) AS "predicate"
       FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = '"Delivery"'::regclass`,
    );
    expect(rows.length).toBeGreaterThanOrEqual(4);
    const named = rows.map((r) => ({ index: r.index, names: [...r.columns, ...[...(r.predicate ?? '').matchAll(/"(\w+)"/g)].map((m) => m[1])] }));
    expect(named.filter((r) => r.names.some((n) => !WRITTEN_ONCE.includes(n)))).toEqual([]);
  });

  /** 60 planned (pending) deliveries of a new notification: 30 users with two devices each. */
  async function plannedRows() {
    const t = await tenant(h);
    const users = Array.from({ length: 30 }, (_, i) => `page-u${i}`);
    await h.db.device.createMany({ data: users.flatMap((userId) => ['android', 'ios'].map((platform) => ({ projectId: t.project.id, userId, deviceToken: `${platform}-${randomUUID()}`, provider: 'fcm', platform }))) });
    const n = await h.db.notification.create({ data: { projectId: t.project.id, templateId: randomUUID(), userIds: users, variables: {}, recipients: users.length } });
    const { rows } = await repository.plan([{ notificationId: n.id, claimant: 'test' }]);
    expect(rows).toHaveLength(60);
    return { notificationId: n.id, rows };
  }

  /**
   * Runs `write` in a transaction of its own connection and answers how many of its updates of
   * Delivery rows were HOT: the connection's own counters, which other suites' writes do not reach.
   * (Each write is measured on rows fresh from planning: the page has room for one new version of
   * each of its rows, as it has in production once the previous one is pruned.)
   */
  async function updatesOf(write: (repository: DeliveryRepository) => Promise<unknown>) {
    const connection = await sqlPool(h.db).connect();
    // The backend's counters of its transactions not yet reported to the statistics: read before and after.
    const counters = async () =>
      (
        await connection.query<{ updated: number; hot: number }>(
          `SELECT pg_stat_get_xact_tuples_updated('"Delivery"'::regclass)::int AS "updated", pg_stat_get_xact_tuples_hot_updated('"Delivery"'::regclass)::int AS "hot"`,
        )
      ).rows[0];
    try {
      await connection.query('BEGIN');
      const before = await counters();
      await write(new DeliveryRepository(connection as unknown as Pool, 30_000));
      const after = await counters();
      await connection.query('COMMIT');
      return { updated: after.updated - before.updated, hot: after.hot - before.hot };
    } finally {
      connection.release();
    }
  }

  it('are claimed as heap-only updates', async () => {
    const { rows } = await plannedRows();
    const counted = await updatesOf(async (inTransaction) => {
      const claimed = await inTransaction.claim(rows.map((r) => ({ deliveryId: r.id, claimant: 'test' })));
      expect(claimed.filter((c) => c && c !== 'held')).toHaveLength(60);
    });
    expect(counted).toEqual({ updated: 60, hot: 60 });
  });

  it('take their outcome as heap-only updates, on their own page', async () => {
    const { notificationId, rows } = await plannedRows();
    const pages = async () => {
      const { rows: at } = await sqlPool(h.db).query<{ id: string; page: number }>(`SELECT "id", (ctid::text::point)[0]::int AS "page" FROM "Delivery" WHERE "notificationId" = $1`, [notificationId]);
      return new Map(at.map((r) => [r.id, r.page]));
    };
    const before = await pages();
    // Outcomes as FCM's make them: a message name of ~80 characters, an error, or a retry.
    const provider = randomUUID();
    const counted = await updatesOf(async (inTransaction) => {
      const { written } = await inTransaction.record(
        rows.map((r, i) =>
          i % 4 === 3
            ? { kind: 'fail' as const, deliveryId: r.id, providerConfigId: provider, error: 'The registration token is not a valid FCM registration token (INVALID_ARGUMENT)' }
            : i % 4 === 2
              ? { kind: 'retry' as const, deliveryId: r.id, providerConfigId: provider, attempts: 1, delayMs: 1000, error: 'UNAVAILABLE' }
              : { kind: 'sent' as const, deliveryId: r.id, providerConfigId: provider, providerMessageId: `projects/my-project-a1b2c/messages/0:${Date.now()}%${randomUUID().replaceAll('-', '')}` },
        ),
      );
      expect(written.size).toBe(60);
    });
    expect(counted).toEqual({ updated: 60, hot: 60 });
    expect(await pages()).toEqual(before);
  });

  it("of a timed broadcast are released by moment: a page reads its own rows, not the broadcast's", async () => {
    const t = await tenant(h);
    const n = await h.db.notification.create({ data: { projectId: t.project.id, templateId: randomUUID(), userIds: [], variables: {}, recipients: 0, status: 'processing' } });
    // 500 rows due (their moment passed), 2,000 of a later moment, 2,000 sent without one, written after
    // the statistics were taken of a table of other notifications' rows: as a fan-out leaves them,
    // expecting next to none of its rows.
    await sqlPool(h.db).query(
      `INSERT INTO "Delivery" ("id", "notificationId", "userId", "deviceId", "platform", "status", "createdAt", "updatedAt")
       SELECT herald_uuid_v7(), $1::uuid, 'u' || i, gen_random_uuid(), 'android', 'sent', now(), now() FROM generate_series(1, 20000) i`,
      [randomUUID()],
    );
    await sqlPool(h.db).query('ANALYZE "Delivery"');
    await sqlPool(h.db).query(
      `INSERT INTO "Delivery" ("id", "notificationId", "userId", "deviceId", "platform", "status", "nextAttemptAt", "notBefore", "createdAt", "updatedAt")
       SELECT herald_uuid_v7(), $1::uuid, 'u' || i, gen_random_uuid(), 'android', (CASE WHEN i > 2500 THEN 'sent' ELSE 'pending' END)::"DeliveryStatus", m, m, now(), now()
       FROM generate_series(1, 4500) i, LATERAL (SELECT CASE WHEN i <= 500 THEN now() - interval '1 minute' WHEN i <= 2500 THEN now() + interval '1 hour' END AS m) AS at`,
      [n.id],
    );
    const connection = await sqlPool(h.db).connect();
    try {
      // As the worker's pool plans (WORKER_PLANNER), and as releaseDue runs it (inIndexOrder).
      for (const [name, value] of Object.entries(plannerSettings(WORKER_PLANNER))) await connection.query('SELECT set_config($1, $2, false)', [name, value]);
      const { rows: first } = await connection.query<{ id: string; at: string }>(RELEASE_DUE_SQL, [n.id, null, null, 200]);
      expect(first).toHaveLength(200);
      for (const after of [[null, null], [first[199].at, first[199].id]]) {
        await connection.query(`BEGIN; ${INDEX_ORDER}`);
        const { rows } = await connection.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${RELEASE_DUE_SQL}`, [n.id, ...after, 200]);
        await connection.query('COMMIT');
        const scan = deliveryScan(rows[0]['QUERY PLAN'][0].Plan);
        expect({ node: scan['Node Type'], index: scan['Index Name'] }).toEqual({ node: 'Index Scan', index: 'Delivery_not_before_idx' });
        expect(scan['Actual Rows'] + (scan['Rows Removed by Filter'] ?? 0)).toBe(200);
      }
    } finally {
      await connection.query('RESET ALL');
      connection.release();
    }
  });
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows': number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

/** The plan's node that reads Delivery. */
function deliveryScan(node: PlanNode): PlanNode {
  const found = (n: PlanNode): PlanNode | undefined => (n['Relation Name'] === 'Delivery' ? n : (n.Plans ?? []).map(found).find(Boolean));
  const scan = found(node);
  if (!scan) throw new Error(`no scan of Delivery in ${JSON.stringify(node)}`);
  return scan;
}
