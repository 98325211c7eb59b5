import { sql, type RawBuilder } from 'kysely';
import type { IndexDocument, SearchHit, SearchResult } from '../port';

/**
 * What every read of the PostgreSQL engine shares: the SQL fragment, the page asked for, and the row a hit is read
 * back from (the columns, and how they become a document).
 */

export type Fragment = RawBuilder<unknown>;

/** A search's answer and the condition its matches meet (what its total counts), for facets over them. */
export type Found = SearchResult & { matches: Fragment };

export interface Page {
  limit: number;
  offset: number;
}

/** The columns a hit is hydrated from, in the row shape `rowToDocument` reads. */
export const DOCUMENT_COLUMNS = sql`d.tenant_id, d.record_id, d.version, d.collection, d.record_type, d.generation,
  d.name, d.description, d.description_llm, d.data, d.source_type, d.status, d.visibility, d.updated_at, d.vocabulary`;

/** A document as its row reads back: collection_data is stored as `data`, and a version may arrive as text. */
export type DocumentRow = Omit<IndexDocument, 'collection_data' | 'version' | 'vocabulary'> & {
  data: Record<string, unknown>;
  version: number | string;
  vocabulary: string | null;
};

function rowToDocument(r: DocumentRow): IndexDocument {
  return {
    tenant_id: r.tenant_id,
    record_id: r.record_id,
    version: Number(r.version),
    collection: r.collection,
    record_type: r.record_type,
    generation: Number(r.generation),
    name: r.name,
    description: r.description,
    description_llm: r.description_llm,
    collection_data: r.data,
    source_type: r.source_type,
    status: r.status,
    visibility: r.visibility,
    updated_at: r.updated_at,
    ...(r.vocabulary === 'older' && { vocabulary: 'older' as const }),
  };
}

export function toHit(r: DocumentRow & { score: number }): SearchHit {
  return { score: Math.min(1, Math.max(0, Number(r.score))), document: rowToDocument(r) };
}

/**
 * A PostgreSQL array literal, so the planner sees the values (a subquery would hide them and make it guess that an
 * identifier matches half a percent of the table).
 */
export function textArray(values: string[]): string {
  return `{${values.map((v) => `"${v.replace(/["\\]/g, '\\$&')}"`).join(',')}}`;
}
