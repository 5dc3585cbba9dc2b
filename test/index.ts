/**
 * `@herald/testing`: what tests anywhere in the repository start and seed Herald with, against real
 * services. The API in this process with its own SMTP server (`startApi`), seeded users, projects and
 * keys (`tenant`…), Firebase service accounts and provider bodies, the API and worker as processes
 * with the FCM emulator (`startPipeline`), private Postgres and Redis servers, a webhook receiver,
 * and `waitUntil`.
 */
export * from './credentials';
export * from './fixtures';
export * from './harness';
export * from './local-minute';
export * from './pg-sessions';
export * from './pipeline';
export * from './run-redis';
export * from './services';
export * from './smtp';
export * from './wait';
export * from './webhook-receiver';
