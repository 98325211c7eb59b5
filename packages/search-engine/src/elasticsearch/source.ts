import { cleanJson, dataText } from '../documents';
import { queryWords } from '../classify';
import { identifiersOf } from '../identifiers';
import type { IndexDocument, Scalar } from '../port';

/**
 * One value of one collection_data key, as the nested `data` field stores it. Each typed field is set only for values
 * of that JSON type, as PostgreSQL's jsonb compares them: ranges and stats see numbers only, text ranges and text
 * sort see strings only.
 */
export interface DataEntry {
  k: string;
  /** The value as JSON: equality (10 and "10" are different values) and group-by keys. */
  j?: string;
  s?: string;
  n?: number;
  b?: boolean;
  /** The words of the value (a string, a number, or a nested object's or array's text values): searchable_fields. */
  t?: string;
}

/** What the records and public indexes hold for a record. */
export interface StoredDocument extends IndexDocument {
  tombstone: false;
  identifiers: string[];
  /** The name as query words read it, for exact-name and name-prefix ranking. */
  name_key: string;
  data_text: string;
  data: DataEntry[];
}

/** What the records index holds for a removed record: enough to keep its version, never searchable. */
export interface Tombstone {
  tenant_id: string;
  record_id: string;
  version: number;
  tombstone: true;
}

/** Fields only the engine needs; a search leaves them out of the hits it fetches. */
export const INTERNAL_FIELDS = ['identifiers', 'name_key', 'data_text', 'data', 'tombstone'];

/** A document id unique across tenants, so one tenant's record id can never address another's document. */
export function documentId(tenant_id: string, record_id: string): string {
  return `${tenant_id}:${record_id}`;
}

/** Tenant ids are UUIDs (no colon), so the pair cannot collide. */
export function generationId(tenant_id: string, collection: string): string {
  return `${tenant_id}:${collection}`;
}

const NUMERIC_TEXT = /^-?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?$/i;

/** A filter value as a number when it is one or spells one ("7.5" from a query string). */
export function numericValue(value: Scalar): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && NUMERIC_TEXT.test(value.trim())) {
    const n = Number(value.trim());
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

/**
 * The stored values an equality filter value matches, as the JSON the entries' `j` holds: the value and its other
 * spellings, so "10" matches a stored 10 or "10", "true" a stored true or "true", 10 a stored 10 or "10". Equal
 * numbers have one JSON text, so 10 also matches a stored 10.0.
 */
export function equalForms(value: Scalar): string[] {
  const forms: Scalar[] = [value];
  if (typeof value === 'string') {
    const n = numericValue(value);
    if (n !== undefined) forms.push(n);
    if (value === 'true' || value === 'false') forms.push(value === 'true');
  } else {
    forms.push(String(value));
  }
  return [...new Set(forms.map((f) => JSON.stringify(f)))];
}

function isScalar(value: unknown): value is Scalar {
  return typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}

/**
 * Entries per document at most: Elasticsearch refuses a document with more than index.mapping.nested_objects.limit
 * (10,000) nested objects, and a record with a huge array should still be found by its text, its other fields and
 * the first values of that array.
 */
export const MAX_ENTRIES = 5_000;

/** The words of a scalar as full text reads them: strings and finite numbers (a boolean is no search term). */
function textOf(value: Scalar): { t?: string } {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)) ? { t: String(value) } : {};
}

/**
 * One entry per scalar value of each top-level key. An array's distinct scalar elements get entries too, holding only
 * their JSON: equality and group-by see the elements (as PostgreSQL's jsonb containment does), while ranges, stats and
 * sort see only top-level numbers and strings, as PostgreSQL's jsonb_typeof checks do. Nested objects and nulls are
 * shown but not filterable.
 */
export function dataEntries(collection_data: Record<string, unknown>): DataEntry[] {
  const entries: DataEntry[] = [];
  for (const [k, value] of Object.entries(collection_data)) {
    if (entries.length >= MAX_ENTRIES) break;
    if (Array.isArray(value)) {
      const seen = new Set<string>();
      for (const element of value) {
        if (entries.length >= MAX_ENTRIES) break;
        if (!isScalar(element)) continue;
        const j = JSON.stringify(element);
        if (!seen.has(j)) entries.push({ k, j, ...textOf(element) });
        seen.add(j);
      }
      // The text of the array's nested objects and arrays, under its key.
      const nested = value.filter((e) => e !== null && typeof e === 'object');
      if (nested.length > 0 && entries.length < MAX_ENTRIES) entries.push({ k, t: dataText({ [k]: nested }) });
    } else if (isScalar(value)) {
      const j = JSON.stringify(value);
      if (typeof value === 'string') entries.push({ k, j, s: value, t: value });
      else if (typeof value === 'number') entries.push({ k, j, n: value, ...textOf(value) });
      else entries.push({ k, j, b: value });
    } else if (value !== null && typeof value === 'object') {
      // A nested object: not filterable (no j), but its text is its key's.
      const t = dataText({ [k]: value });
      if (t) entries.push({ k, t });
    }
  }
  return entries;
}

/**
 * Copies the document's own fields one by one: the mapping is strict, so a stray property must not reach it. Text is
 * cleaned as the PostgreSQL engine cleans it (cleanJson), so both engines give back the same document.
 */
export function toStored(raw: IndexDocument): StoredDocument {
  const document = cleanJson(raw);
  return {
    tenant_id: document.tenant_id,
    record_id: document.record_id,
    version: document.version,
    collection: document.collection,
    record_type: document.record_type,
    generation: document.generation,
    name: document.name,
    description: document.description,
    description_llm: document.description_llm,
    collection_data: document.collection_data,
    source_type: document.source_type,
    status: document.status,
    visibility: document.visibility,
    updated_at: document.updated_at,
    ...(document.vocabulary === 'older' && { vocabulary: document.vocabulary }),
    tombstone: false,
    identifiers: identifiersOf(document),
    name_key: queryWords(document.name).join(' '),
    data_text: dataText(document.collection_data),
    data: dataEntries(document.collection_data),
  };
}

export function tombstoneOf(tenant_id: string, record_id: string, version: number): Tombstone {
  return { tenant_id, record_id, version, tombstone: true };
}

/** The IndexDocument a hit's source stands for. */
export function fromSource(source: Partial<StoredDocument>): IndexDocument {
  return {
    tenant_id: source.tenant_id ?? '',
    record_id: source.record_id ?? '',
    version: source.version ?? 0,
    collection: source.collection ?? '',
    record_type: source.record_type ?? '',
    generation: source.generation ?? 0,
    name: source.name ?? '',
    description: source.description ?? null,
    description_llm: source.description_llm ?? '',
    collection_data: source.collection_data ?? {},
    source_type: source.source_type ?? '',
    status: source.status ?? 'active',
    visibility: source.visibility ?? 'private',
    updated_at: source.updated_at ?? '',
    ...(source.vocabulary === 'older' && { vocabulary: 'older' as const }),
  };
}
