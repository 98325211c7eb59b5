export type { Database } from './port';
export { openDatabase } from './factory';
export { copyInto } from './copy';
export { prepared } from './prepared';
export { DataFolderLockedError } from './folder-lock';
export { isRunning } from './process';
export * from './migrate';
export { sql } from 'kysely';
export type { Kysely, Transaction } from 'kysely';
