export * from './errors';
export * from './scopes';
export * from './patterns';
export * from './jobs';
export * from './meta-tools';
export * from './tool-search';
