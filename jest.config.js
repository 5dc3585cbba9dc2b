/** Tests run against real Postgres and Redis; see test/global-setup.ts. */
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/apps', '<rootDir>/packages', '<rootDir>/test', '<rootDir>/deploy'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } }] },
  // `@herald/testing` is the test harness (test/index.ts), not a package.
  moduleNameMapper: { '^@herald/testing$': '<rootDir>/test/index.ts', '^@herald/([a-z-]+)$': '<rootDir>/packages/$1/src' },
  modulePathIgnorePatterns: ['<rootDir>/.*/dist/'],
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  testTimeout: 30000,
  maxWorkers: 2,
  // A test file's realm outlives it when something process-wide still points into it (prom-client's
  // GC observer of each in-process API, which it cannot stop; jest-circus's AsyncLocalStorage on
  // Node's shared fetch timer), so a worker's heap grew by ~40 MB a file to ~1 GB, and tearing that
  // down at the end took longer than the 500 ms jest waits: "A worker process has failed to exit
  // gracefully". A worker past this after a file is replaced by a fresh one.
  workerIdleMemoryLimit: '512MB',
  // jest-worker checks that limit after a worker's last file too, when the run may already have told
  // its workers to end: a worker over it is then replaced by a new one, which must start before it can
  // end. On two busy cores that start took longer than jest's default wait of 500 ms, and the run
  // printed "A worker process has failed to exit gracefully" with nothing leaked (reproduced with four
  // one-line test files, a limit of 1 MB and a busy CPU). A worker that really hangs still gets the warning.
  workerGracefulExitTimeout: 10_000,
  // Jest 30 "soft"-deletes what a test file left on the global scope and warns when it is read again;
  // Prisma's query compiler (wasm-bindgen glue) keeps such a reference across files, so runs printed a
  // DeprecationWarning now and then. The recycling above already bounds each worker's memory.
  testEnvironmentOptions: { globalsCleanup: 'off' },
};
