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
};
