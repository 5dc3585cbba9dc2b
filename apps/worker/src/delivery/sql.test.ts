import { randomUUID } from 'node:crypto';
import { closeDb, createDb, sqlPool, type Db } from '@herald/db';
import { arrayLiteral } from './sql';

let db: Db;
beforeAll(() => {
  db = createDb(process.env.DATABASE_URL!, { poolSize: 1 });
});
afterAll(() => closeDb(db));

describe('arrayLiteral', () => {
  it('passes uuids, integers, words and nulls as Postgres reads them back', async () => {
    const ids = [randomUUID(), null, randomUUID()];
    expect(arrayLiteral(ids)).toBe(`{${ids[0]},NULL,${ids[2]}}`);
    const { rows } = await sqlPool(db).query<{ ids: (string | null)[]; n: (number | null)[]; kinds: string[]; none: string[] }>(
      'SELECT $1::uuid[] AS "ids", $2::int[] AS "n", $3::text[] AS "kinds", $4::uuid[] AS "none"',
      [arrayLiteral(ids), arrayLiteral([3, null, 0]), arrayLiteral(['sent', 'failover']), arrayLiteral([])],
    );
    expect(rows[0]).toEqual({ ids, n: [3, null, 0], kinds: ['sent', 'failover'], none: [] });
  });
});
