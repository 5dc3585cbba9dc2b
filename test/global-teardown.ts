import { dropDatabase } from '../packages/db/src/migrate';
import { shared } from './global-setup';
import { deleteKeysWithPrefix } from './redis-keys';

export default async function globalTeardown() {
  await shared.cluster?.close();
  const databaseUrl = process.env.DATABASE_URL!;
  if (!new URL(databaseUrl).pathname.startsWith('/herald_test_')) return;
  await dropDatabase(databaseUrl);
  // A cluster run's keys went with its cluster.
  if (!shared.cluster) await deleteKeysWithPrefix(process.env.REDIS_URL!, process.env.QUEUE_PREFIX!);
}
