export * from './module';
export * from './system';
export * from './testing';
