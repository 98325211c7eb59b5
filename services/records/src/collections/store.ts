import { sql } from 'kysely';
import type { CollectionSummary, VocabularyName } from '@trove/contracts';
import type { Executor, IndexingStatus, Trx } from '../shared/schema';

const TABLE = 'records.collections';

export interface CollectionSettings {
  default_visibility: 'private' | 'public';
  active_generation: number;
  /** A blue-green replace in progress (replace/store.ts), or null. */
  staging_generation: number | null;
  staging_status: 'uploading' | 'uploaded' | null;
  /** The vocabulary that first created the collection. */
  vocabulary: VocabularyName;
}

const SETTINGS = ['default_visibility', 'active_generation', 'staging_generation', 'staging_status', 'vocabulary'] as const;

/**
 * The collection's settings, creating the collection on its first use (in `vocabulary`, which a collection keeps
 * from then on). The row stays key-share locked until commit, so a swap or cancel of a replace (which locks it for
 * update) never runs while this write is putting records into a generation it would delete or archive.
 */
export async function ensureCollection(trx: Trx, tenantId: string, name: string, vocabulary: VocabularyName = 'current'): Promise<CollectionSettings> {
  const existing = await trx
    .selectFrom(TABLE)
    .select(SETTINGS)
    .where('tenant_id', '=', tenantId)
    .where('name', '=', name)
    .forKeyShare()
    .executeTakeFirst();
  if (existing) return existing;
  // A concurrent first use may win the insert; then the row it wrote is read back.
  await trx
    .insertInto(TABLE)
    .values({ tenant_id: tenantId, name, default_visibility: 'private', vocabulary })
    .onConflict((oc) => oc.columns(['tenant_id', 'name']).doNothing())
    .execute();
  return trx
    .selectFrom(TABLE)
    .select(SETTINGS)
    .where('tenant_id', '=', tenantId)
    .where('name', '=', name)
    .forKeyShare()
    .executeTakeFirstOrThrow();
}

/** What records.changed events say of a record's collection (collections never used have none). */
export interface AnnouncedCollection {
  active_generation: number;
  vocabulary: VocabularyName;
}

/** Active generation and vocabulary of each named collection of a tenant (collections never used have none). */
export async function activeGenerations(db: Executor, tenantId: string, names: string[]): Promise<Map<string, AnnouncedCollection>> {
  if (names.length === 0) return new Map();
  const rows = await db
    .selectFrom(TABLE)
    .select(['name', 'active_generation', 'vocabulary'])
    .where('tenant_id', '=', tenantId)
    .where('name', 'in', names)
    .execute();
  return new Map(rows.map((r) => [r.name, { active_generation: r.active_generation, vocabulary: r.vocabulary }]));
}

/** The visibility each of the tenant's collections gives its new records, by name (a collection never used has none). */
export async function defaultVisibilities(db: Executor, tenantId: string): Promise<Map<string, CollectionSettings['default_visibility']>> {
  const rows = await db.selectFrom(TABLE).select(['name', 'default_visibility']).where('tenant_id', '=', tenantId).execute();
  return new Map(rows.map((r) => [r.name, r.default_visibility]));
}

/**
 * The tenant's collections that hold active records of their active generation, by name, each with its record types
 * (most records first, ties by name) and its records' counts by indexing status. One grouped query over the records,
 * their collection and their indexing rows (index records_collections).
 */
export async function listCollections(db: Executor, tenantId: string): Promise<CollectionSummary[]> {
  const { rows } = await sql<{ collection: string; record_type: string; status: IndexingStatus; n: number }>`
    select r.collection, r.record_type, i.status, count(*)::int as n
    from records.records r
    join records.collections c on c.tenant_id = r.tenant_id and c.name = r.collection
    join records.indexing i on i.record_id = r.id
    where r.tenant_id = ${tenantId} and r.status = 'active' and r.generation = c.active_generation
    group by r.collection, r.record_type, i.status
  `.execute(db);
  const byName = new Map<string, CollectionSummary>();
  for (const row of rows) {
    let summary = byName.get(row.collection);
    if (!summary) {
      summary = { name: row.collection, record_types: [], record_type_counts: {}, total_records: 0, indexed: 0, pending: 0, processing: 0, failed: 0 };
      byName.set(row.collection, summary);
    }
    summary.record_type_counts[row.record_type] = (summary.record_type_counts[row.record_type] ?? 0) + row.n;
    summary.total_records += row.n;
    summary[row.status] += row.n;
  }
  const summaries = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const s of summaries) {
    const counts = s.record_type_counts;
    s.record_types = Object.keys(counts).sort((a, b) => counts[b]! - counts[a]! || (a < b ? -1 : a > b ? 1 : 0));
  }
  return summaries;
}
