import { sql } from 'kysely';
import type { Executor, Trx } from './schema';

const TABLE = 'records.collections';

export interface CollectionSettings {
  default_visibility: 'private' | 'public';
  active_generation: number;
}

/** The collection's settings, creating the collection on its first use. */
export async function ensureCollection(trx: Trx, tenantId: string, name: string): Promise<CollectionSettings> {
  const existing = await trx
    .selectFrom(TABLE)
    .select(['default_visibility', 'active_generation'])
    .where('tenant_id', '=', tenantId)
    .where('name', '=', name)
    .executeTakeFirst();
  if (existing) return existing;
  // A concurrent first use may win the insert; then the row it wrote is read back.
  await trx
    .insertInto(TABLE)
    .values({ tenant_id: tenantId, name, default_visibility: 'private' })
    .onConflict((oc) => oc.columns(['tenant_id', 'name']).doNothing())
    .execute();
  return trx
    .selectFrom(TABLE)
    .select(['default_visibility', 'active_generation'])
    .where('tenant_id', '=', tenantId)
    .where('name', '=', name)
    .executeTakeFirstOrThrow();
}

/** Sets the visibility future records of the collection take; creates the collection if it is new. */
export async function setDefaultVisibility(db: Executor, tenantId: string, name: string, visibility: 'private' | 'public'): Promise<void> {
  await db
    .insertInto(TABLE)
    .values({ tenant_id: tenantId, name, default_visibility: visibility })
    .onConflict((oc) => oc.columns(['tenant_id', 'name']).doUpdateSet({ default_visibility: visibility, updated_at: sql`now()` }))
    .execute();
}

/** Active generation of each named collection of a tenant (collections never used have none). */
export async function activeGenerations(db: Executor, tenantId: string, names: string[]): Promise<Map<string, number>> {
  if (names.length === 0) return new Map();
  const rows = await db
    .selectFrom(TABLE)
    .select(['name', 'active_generation'])
    .where('tenant_id', '=', tenantId)
    .where('name', 'in', names)
    .execute();
  return new Map(rows.map((r) => [r.name, r.active_generation]));
}
