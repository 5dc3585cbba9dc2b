export * from './client';
export { dropDatabase, ensureDatabase, migrate, defaultMigrationsDir } from './migrate';
export { Prisma } from './generated/prisma/client';
export type * from './generated/prisma/client';
export * from './generated/prisma/enums';
export * from './provider-credentials';
export * from './errors';
export * from './webhook-events';
export * from './audience-sql';
