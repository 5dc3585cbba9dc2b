export * from './errors';
export * from './secrets';
