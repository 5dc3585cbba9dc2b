import Redis from 'ioredis';
import { Client } from 'pg';

export default async function globalTeardown() {
  const url = new URL(process.env.DATABASE_URL!);
  const name = url.pathname.slice(1);
  if (!name.startsWith('herald_test_')) return;
  url.pathname = '/postgres';
  const admin = new Client({ connectionString: url.toString() });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.end();

  const redis = new Redis(process.env.REDIS_URL!, { lazyConnect: true });
  await redis.connect();
  const prefix = process.env.QUEUE_PREFIX!;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length) await redis.del(...keys);
  } while (cursor !== '0');
  redis.disconnect();
}
