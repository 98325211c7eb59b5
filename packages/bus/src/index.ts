export * from './port';
export * from './migrations';
export * from './embedded';
export * from './factory';
