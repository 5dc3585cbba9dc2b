import Redis from 'ioredis';
import { dropDatabase } from '../packages/db/src/migrate';

export default async function globalTeardown() {
  const databaseUrl = process.env.DATABASE_URL!;
  if (!new URL(databaseUrl).pathname.startsWith('/herald_test_')) return;
  await dropDatabase(databaseUrl);

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
