export * from './errors';
export * from './scopes';
export * from './patterns';
export * from './jobs';
