import { DEFAULT_SETTINGS, withDefaults, type CollectionSettings, type CollectionSettingsAnswer } from '@trove/contracts';
import { sql, type Kysely } from '@trove/db';

/**
 * search.collection_settings (migrations.ts, version 2): a tenant collection's search settings and their version. A
 * collection never changed has the defaults at version 0.
 */

export async function readSettings(db: Kysely<any>, tenant_id: string, collection: string): Promise<CollectionSettingsAnswer> {
  const { rows } = await sql<{ settings: CollectionSettings; version: number; updated_at: Date }>`
    select settings, version, updated_at from search.collection_settings
    where tenant_id = ${tenant_id} and collection = ${collection}`.execute(db);
  const row = rows[0];
  if (!row) return { collection, version: 0, settings: DEFAULT_SETTINGS, updated_at: null };
  return { collection, version: row.version, settings: withDefaults(row.settings), updated_at: new Date(row.updated_at).toISOString() };
}

/**
 * Writes a collection's settings as `change` makes them from those held, in one transaction that locks the row, so
 * two changes at once both land (the second on the first's result) and each raises the version by one.
 */
export async function changeSettings(
  db: Kysely<any>,
  tenant_id: string,
  collection: string,
  change: (held: CollectionSettings) => CollectionSettings,
): Promise<CollectionSettingsAnswer> {
  return db.transaction().execute(async (trx) => {
    await sql`
      insert into search.collection_settings (tenant_id, collection, settings, version)
      values (${tenant_id}, ${collection}, ${JSON.stringify(DEFAULT_SETTINGS)}::jsonb, 0)
      on conflict (tenant_id, collection) do nothing`.execute(trx);
    const { rows } = await sql<{ settings: CollectionSettings }>`
      select settings from search.collection_settings
      where tenant_id = ${tenant_id} and collection = ${collection} for update`.execute(trx);
    const settings = change(withDefaults(rows[0]!.settings));
    const updated = await sql<{ version: number; updated_at: Date }>`
      update search.collection_settings set settings = ${JSON.stringify(settings)}::jsonb, version = version + 1, updated_at = now()
      where tenant_id = ${tenant_id} and collection = ${collection}
      returning version, updated_at`.execute(trx);
    const row = updated.rows[0]!;
    return { collection, version: row.version, settings, updated_at: new Date(row.updated_at).toISOString() };
  });
}
