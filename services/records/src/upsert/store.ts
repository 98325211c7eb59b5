import { sql } from 'kysely';
import { updateRecords, type ContentMatch, type RecordRow } from '../records/store';
import type { Executor, Trx } from '../shared/schema';

/**
 * The tenant's live records of a collection's generation and a record type with one of the content hashes, oldest
 * first, at most `perHash` of each: planUpsert needs one more than the chunk's items can move away, never all of them.
 * Probes the content index per hash, for the same reason as findLiveBySourceIds.
 */
export async function findLiveByContentHashes(
  db: Executor,
  tenantId: string,
  collection: string,
  generation: number,
  recordType: string,
  hashes: string[],
  perHash: number,
): Promise<ContentMatch[]> {
  if (hashes.length === 0) return [];
  const result = await sql<ContentMatch>`
    select r.id, r.source_id, r.record_type, r.content_hash
    from unnest(${hashes}::text[]) as h(content_hash)
    cross join lateral (
      select id, source_id, record_type, content_hash, created_at from records.records
      where content_hash = h.content_hash and status <> 'archived'
        and tenant_id = ${tenantId} and collection = ${collection} and record_type = ${recordType}
        and generation = ${generation}
      limit ${perHash}
    ) as r
    order by r.created_at, r.id
  `.execute(db);
  return result.rows;
}

/** New content for a stored record: description and source_url undefined keep what is stored. */
export interface ContentReplacement {
  id: string;
  name: string;
  collection_data: Record<string, unknown>;
  content_hash: string;
  description_llm: string;
  description: string | undefined;
  source_url: string | undefined;
}

/** What an upload replaces of a stored record: its content, and its description and source_url when it carries them. */
const CONTENT = ['name', 'collection_data', 'content_hash', 'description_llm', 'description', 'source_url'] as const;

/**
 * Replaces the name and collection_data of the tenant's live records (an upload states the whole record), each with
 * the next version, pending indexing (updateRecords); archived ones are left alone and absent from the result.
 */
export async function replaceContents(trx: Trx, tenantId: string, replacements: ContentReplacement[]): Promise<RecordRow[]> {
  return updateRecords(trx, tenantId, CONTENT, replacements, ['description', 'source_url']);
}
