/**
 * What the API and the worker know about a project between two changes to it: a versioned cache of
 * typed snapshots (snapshots.ts) over the projects' versions in Redis (versions.ts), the loads a snapshot
 * shares (memo.ts) and the project-scoped reads from Postgres (reads.ts).
 */
export * from './snapshots';
export * from './memo';
export * from './reads';
export * from './versions';
export * from './redis-connection';
