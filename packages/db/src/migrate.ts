import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from './port';

export interface Migration {
  version: number;
  name: string;
  /** SQL text (may hold several statements) or a function given the transaction. */
  up: string | ((trx: Transaction<any>) => Promise<void>);
}

/**
 * Applies a service's pending migrations to its own schema, in version order, in one transaction holding an
 * advisory lock, so replicas starting together apply each migration exactly once.
 */
export async function migrate(database: Database, schema: string, migrations: Migration[]): Promise<number[]> {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`Invalid schema name ${schema}`);
  const sorted = [...migrations].sort((a, b) => a.version - b.version);
  const versions = new Set<number>();
  for (const m of sorted) {
    if (versions.has(m.version)) throw new Error(`Duplicate migration version ${m.version} in ${schema}`);
    versions.add(m.version);
  }
  return database.db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtext(${`trove.migrate.${schema}`}))`.execute(trx);
    await sql.raw(`create schema if not exists ${schema}`).execute(trx);
    await sql
      .raw(
        `create table if not exists ${schema}.schema_migrations (version integer primary key, name text not null, applied_at timestamptz not null default now())`,
      )
      .execute(trx);
    const applied = await sql<{ version: number }>`select version from ${sql.table(`${schema}.schema_migrations`)}`.execute(trx);
    const done = new Set(applied.rows.map((r) => Number(r.version)));
    const ran: number[] = [];
    for (const m of sorted) {
      if (done.has(m.version)) continue;
      if (typeof m.up === 'string') await sql.raw(m.up).execute(trx);
      else await m.up(trx);
      await sql`insert into ${sql.table(`${schema}.schema_migrations`)} (version, name) values (${m.version}, ${m.name})`.execute(trx);
      ran.push(m.version);
    }
    return ran;
  });
}

export type { Kysely };
