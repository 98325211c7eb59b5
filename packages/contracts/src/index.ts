export * from './topics';
export * from './records';
export * from './events';
export * from './auth';
export * from './ingest';
export * from './search';
export * from './storable';
export * from './name-terms';
