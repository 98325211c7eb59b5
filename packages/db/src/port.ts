import type { Kysely } from 'kysely';

/**
 * The database port. Two adapters, a PostgreSQL server (postgres.ts) and PGlite in a data folder (pglite.ts), with
 * the same observable behaviour, proven by one contract suite (database.contract.ts); openDatabase (factory.ts)
 * chooses one from configuration. Nothing above this package asks which adapter it has, except to say so in logs.
 *
 * Both adapters:
 * - run a transaction (`db.transaction()`) atomically: every statement in it, an outgoing NOTIFY and a COPY made by
 *   copyInto commit together or are all undone when it throws;
 * - read int8 (counts, sums, bigserial ids) as JavaScript numbers, not strings: every value Trove stores fits in
 *   2^53;
 * - accept several statements in one parameterless SQL text (migrations).
 */
export interface Database {
  /** For logs and the start-up banner only. */
  readonly kind: 'postgres' | 'pglite';
  /**
   * Untyped at this level: each service's module gives it its own table types once (`Kysely<ServiceTables>`) and
   * passes that handle down. On PostgreSQL queries share a pool; PGlite is one connection, so there transactions run
   * one after the other and a query outside a transaction waits until the open one ends.
   */
  readonly db: Kysely<any>;
  /**
   * Subscribes to NOTIFY on a channel; returns the unsubscribe function. A notification sent inside a transaction
   * arrives only if that transaction commits. On PostgreSQL one dedicated connection holds every LISTEN of the
   * process and, when it drops, reconnects and listens again, so subscribers keep their wake-ups across a database
   * restart. On PGlite it waits for the one connection, so never call it while holding a transaction.
   */
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  /** Resolves when the database answers a query; rejects when it cannot. */
  ping(): Promise<void>;
  /**
   * Another handle on the same database whose every statement is cancelled after `statementTimeoutMs` (SQLSTATE
   * 57014), with a pool of its own; the caller closes it. Only a PostgreSQL server can cancel a running statement:
   * PGlite has no such handle.
   */
  bounded?(statementTimeoutMs: number): Promise<Database>;
  /** Ends every connection (and, on PGlite, releases the data folder's lock). */
  close(): Promise<void>;
}
