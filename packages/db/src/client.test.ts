import { databaseUrlNamed, sessionsGone, sessionsNamed } from '@herald/testing';
import { closeDb, createDb, sqlPool } from './client';

it('customPlans and randomPageCost reach every connection; by default Postgres decides', async () => {
  const custom = createDb(process.env.DATABASE_URL!, { customPlans: true, randomPageCost: 1.1, poolSize: 2 });
  const plain = createDb(process.env.DATABASE_URL!, { poolSize: 1 });
  try {
    const mode = async (db: typeof custom) => (await sqlPool(db).query<{ plan_cache_mode: string }>('SHOW plan_cache_mode')).rows[0].plan_cache_mode;
    expect(await Promise.all([mode(custom), mode(custom)])).toEqual(['force_custom_plan', 'force_custom_plan']);
    expect(await mode(plain)).toBe('auto');
    const pageCost = async (db: typeof custom) => (await sqlPool(db).query<{ random_page_cost: string }>('SHOW random_page_cost')).rows[0].random_page_cost;
    expect(await Promise.all([pageCost(custom), pageCost(custom)])).toEqual(['1.1', '1.1']);
    expect(await pageCost(plain)).toBe('4');
  } finally {
    await closeDb(custom);
    await closeDb(plain);
  }
});

it('JIT is off on every pool; seqScan: false turns sequential scans off where an index can answer', async () => {
  const worker = createDb(process.env.DATABASE_URL!, { seqScan: false, poolSize: 1 });
  const plain = createDb(process.env.DATABASE_URL!, { poolSize: 1 });
  try {
    const show = async (db: typeof plain, setting: string) => Object.values((await sqlPool(db).query(`SHOW ${setting}`)).rows[0])[0];
    expect([await show(worker, 'jit'), await show(plain, 'jit')]).toEqual(['off', 'off']);
    expect([await show(worker, 'enable_seqscan'), await show(plain, 'enable_seqscan')]).toEqual(['off', 'on']);
  } finally {
    await closeDb(worker);
    await closeDb(plain);
  }
});

describe('closeDb', () => {
  it.each([
    ['used through node-postgres alone (as a worker delivers)', async (db: ReturnType<typeof createDb>) => void (await sqlPool(db).query('SELECT 1'))],
    ['used through Prisma', async (db: ReturnType<typeof createDb>) => void (await db.$queryRaw`SELECT 1`)],
  ])('closes every connection of a client %s', async (_, use) => {
    const name = `herald-close-${process.pid}-${Date.now()}`;
    const db = createDb(databaseUrlNamed(name), { poolSize: 2 });
    const observer = createDb(process.env.DATABASE_URL!, { poolSize: 1 });
    try {
      await use(db);
      expect(await sessionsNamed(sqlPool(observer), name)).toBeGreaterThan(0);
      await Promise.all([closeDb(db), closeDb(db)]); // asked twice at once: one close
      expect(sqlPool(db).ended).toBe(true);
      await sessionsGone(sqlPool(observer), name);
      expect(await sessionsNamed(sqlPool(observer), name)).toBe(0);
      await closeDb(db); // and again afterwards: harmless
    } finally {
      await closeDb(observer);
    }
  });
});
