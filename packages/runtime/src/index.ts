export * from './module';
export * from './system';
