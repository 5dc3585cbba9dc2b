import { createDb, sqlPool } from './client';

it('customPlans: every connection plans each execution of a prepared statement afresh; by default Postgres decides', async () => {
  const custom = createDb(process.env.DATABASE_URL!, { customPlans: true, poolSize: 2 });
  const plain = createDb(process.env.DATABASE_URL!, { poolSize: 1 });
  try {
    const mode = async (db: typeof custom) => (await sqlPool(db).query<{ plan_cache_mode: string }>('SHOW plan_cache_mode')).rows[0].plan_cache_mode;
    expect(await Promise.all([mode(custom), mode(custom)])).toEqual(['force_custom_plan', 'force_custom_plan']);
    expect(await mode(plain)).toBe('auto');
  } finally {
    await custom.$disconnect();
    await plain.$disconnect();
  }
});
