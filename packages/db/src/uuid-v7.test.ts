import { Client } from 'pg';

// herald_uuid_v7() (the baseline migration) makes the ids of Delivery rows: UUIDs of version 7, whose
// first 48 bits are the Unix time in milliseconds, so that rows made later sort later.
const client = new Client({ connectionString: process.env.DATABASE_URL });
beforeAll(() => client.connect());
afterAll(() => client.end());

const v7 = async (): Promise<string> => (await client.query<{ id: string }>('SELECT herald_uuid_v7()::text AS id')).rows[0].id;
const millis = (id: string) => parseInt(id.replace(/-/g, '').slice(0, 12), 16);

it('is a version 7 UUID of the RFC 9562 variant, carrying the current time in milliseconds', async () => {
  const before = Date.now();
  const id = await v7();
  const after = Date.now();
  expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  // Postgres' clock and this process' are the same machine's; allow for rounding and scheduling.
  expect(millis(id)).toBeGreaterThanOrEqual(before - 50);
  expect(millis(id)).toBeLessThanOrEqual(after + 50);
});

it('sorts ids made in later milliseconds after earlier ones, and never repeats', async () => {
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    ids.push(await v7());
    await new Promise((r) => setTimeout(r, 3));
  }
  expect([...ids].sort()).toEqual(ids);
  const many = (await client.query<{ id: string }>('SELECT herald_uuid_v7()::text AS id FROM generate_series(1, 1000)')).rows.map((r) => r.id);
  expect(new Set(many).size).toBe(1000);
  expect(many.every((id) => id[14] === '7')).toBe(true);
});
