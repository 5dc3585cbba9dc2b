import { loadMigrateConfig } from '@herald/config';
import { ensureDatabase, migrate } from './migrate';

async function main() {
  const { databaseUrl } = loadMigrateConfig();
  if (await ensureDatabase(databaseUrl)) console.log('created database');
  const { applied, alreadyApplied } = await migrate(databaseUrl);
  console.log(`migrations: ${applied.length} applied${applied.length ? ` (${applied.join(', ')})` : ''}, ${alreadyApplied} already applied`);
}

main().catch((err) => {
  console.error(`migration failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
