export * from './module';
export * from './system';
export * from './storage';
