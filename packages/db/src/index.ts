export * from './database';
export * from './migrate';
export { sql } from 'kysely';
export type { Kysely, Transaction, Selectable, Insertable, Updateable } from 'kysely';
