export * from './errors';
export * from './secrets';
export * from './crypto';
export * from './template';
export * from './queue';
export * from './push-options';
export * from './webhooks';
