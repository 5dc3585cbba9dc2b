// Every shared component of the dashboard, so that a page imports them in one line.
export * from './button';
export * from './confirm-button';
export * from './data-table';
export * from './dialog';
export * from './fields';
export * from './form-dialog';
export * from './form';
export * from './format';
export * from './layout';
export * from './notices';
export * from './once-secret';
export * from './pagination';
export * from './role';
export * from './status-badge';
export * from './switch';
