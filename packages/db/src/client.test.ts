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

describe('closeDb', () => {
  /** This test's connections as Postgres sees them, by application_name. */
  const sessions = async (db: ReturnType<typeof createDb>, name: string) => {
    const { rows } = await sqlPool(db).query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1', [name]);
    return rows[0].n;
  };

  it.each([
    ['used through node-postgres alone (as a worker delivers)', async (db: ReturnType<typeof createDb>) => void (await sqlPool(db).query('SELECT 1'))],
    ['used through Prisma', async (db: ReturnType<typeof createDb>) => void (await db.$queryRaw`SELECT 1`)],
  ])('closes every connection of a client %s', async (_, use) => {
    const name = `herald-close-${process.pid}-${Date.now()}`;
    const url = new URL(process.env.DATABASE_URL!);
    url.searchParams.set('application_name', name);
    const db = createDb(url.toString(), { poolSize: 2 });
    const observer = createDb(process.env.DATABASE_URL!, { poolSize: 1 });
    try {
      await use(db);
      expect(await sessions(observer, name)).toBeGreaterThan(0);
      await Promise.all([closeDb(db), closeDb(db)]); // asked twice at once: one close
      expect(sqlPool(db).ended).toBe(true);
      // Postgres sees a connection go when its backend exits, a moment after the client closed it.
      for (let waited = 0; (await sessions(observer, name)) > 0 && waited < 3000; waited += 50) await new Promise((r) => setTimeout(r, 50));
      expect(await sessions(observer, name)).toBe(0);
      await closeDb(db); // and again afterwards: harmless
    } finally {
      await closeDb(observer);
    }
  });
});
