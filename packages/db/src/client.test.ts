import { createDb, sqlPool } from './client';

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
    await custom.$disconnect();
    await plain.$disconnect();
  }
});
