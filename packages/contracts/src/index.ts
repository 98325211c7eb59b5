export * from './topics';
export * from './records';
export * from './events';
export * from './vocabulary';
export * from './auth';
export * from './ingest';
export * from './search';
export * from './storable';
