export * from './port';
export * from './migrations';
export * from './embedded';
export * from './outbox';
export * from './kafka';
export * from './factory';
export * from './tally';
export * from './payloads';
