import { sql, type Kysely, type Transaction } from '@trove/db';
import { changeProblem, cleanJson, dataText } from '../documents';
import { identifiersOf } from '../identifiers';
import type { Maintenance } from './maintenance';
import type { ApplyOutcome, IndexChange, IndexDocument } from '../port';
import { searchText } from './tsquery';
import { isVocabularyWord } from '../typos';
import type { Fragment } from './rows';

/**
 * The PostgreSQL engine's write side: how a batch of index changes is validated and written (one statement per kind of
 * change, whatever the batch size, or item by item when PostgreSQL refuses the batch) and how a generation swap becomes
 * statements; each tells the table's maintenance (maintenance.ts) how many rows it wrote. Writes run on the engine's
 * own database handle, never bounded in time. The rows written here are what the reads elsewhere in this folder find: the weighted tsvector
 * (ranking.ts), the identifiers (identifiers.ts) and the vocabulary (typos.ts).
 */

export class Writes {
  constructor(
    /** The engine's database, never bounded in time: writes and swaps run here. */
    private readonly db: Kysely<any>,
    /** Given each batch's valid changes before they are written (the engine retires their scopes' kept near words). */
    private readonly written: (changes: IndexChange[]) => void,
    /** Told how many rows each write changed: it keeps the table's statistics, indexes and dead rows in order. */
    private readonly maintenance: Maintenance,
  ) {}

  async apply(changes: IndexChange[]): Promise<ApplyOutcome[]> {
    const outcomes: ApplyOutcome[] = changes.map((change) => ({
      record_id: recordIdOf(change),
      version: versionOf(change),
      status: 'indexed',
    }));
    const valid: IndexChange[] = [];
    changes.forEach((change, i) => {
      const problem = changeProblem(change);
      if (problem) outcomes[i] = { ...outcomes[i]!, status: 'failed', error: problem };
      else valid.push(change);
    });
    if (valid.length === 0) return outcomes;
    this.written(valid);
    try {
      await this.db.transaction().execute((trx) => writeChanges(trx, valid));
    } catch {
      // Something in the batch PostgreSQL refuses that validation did not foresee: write item by item, each in a
      // savepoint, so only the culprits fail.
      await this.db.transaction().execute(async (trx) => {
        for (const [i, change] of changes.entries()) {
          if (outcomes[i]!.status === 'failed') continue;
          await sql`savepoint item`.execute(trx);
          try {
            await writeChanges(trx, [change]);
            await sql`release savepoint item`.execute(trx);
          } catch (err) {
            await sql`rollback to savepoint item`.execute(trx);
            outcomes[i] = { ...outcomes[i]!, status: 'failed', error: (err as Error).message };
          }
        }
      });
    }
    // A record's later version (or its removal) replaces the row of the one before: a dead row for the vacuum.
    this.maintenance.noteWrites(valid.length, valid.filter((c) => c.op === 'remove' || c.document.version > 1).length);
    return outcomes;
  }

  async swapGeneration(tenant_id: string, collection: string, generation: number): Promise<void> {
    const changed = await this.db.transaction().execute((trx) => swapActiveGeneration(trx, tenant_id, collection, generation));
    this.maintenance.noteWrites(changed, changed);
  }
}

const MAX_NAME_TEXT = 2_000;
const MAX_DESCRIPTION_TEXT = 8_000;

/** The record a change is about, read defensively: a malformed change still gets an outcome naming what it can. */
function recordIdOf(change: IndexChange): string {
  return String((change?.op === 'upsert' ? change.document?.record_id : change?.record_id) ?? '');
}

function versionOf(change: IndexChange): number {
  return Number((change?.op === 'upsert' ? change.document?.version : change?.version) ?? 0);
}

/**
 * Per record, the change that wins within the batch: the highest version, a removal winning a tie (a hard delete
 * announced with the record's last version must still take it out).
 */
function latestPerRecord(changes: IndexChange[]): IndexChange[] {
  const latest = new Map<string, IndexChange>();
  for (const change of changes) {
    const key = `${change.op === 'upsert' ? change.document.tenant_id : change.tenant_id}\u0000${recordIdOf(change)}`;
    const current = latest.get(key);
    const version = versionOf(change);
    if (!current || version > versionOf(current) || (version === versionOf(current) && change.op === 'remove')) {
      latest.set(key, change);
    }
  }
  return [...latest.values()];
}

/** Writes a batch of valid changes with one statement per kind, whatever the batch size. */
async function writeChanges(trx: Transaction<any>, changes: IndexChange[]): Promise<void> {
  const winners = latestPerRecord(changes);
  const upserts = winners.filter((c): c is Extract<IndexChange, { op: 'upsert' }> => c.op === 'upsert');
  const removes = winners.filter((c): c is Extract<IndexChange, { op: 'remove' }> => c.op === 'remove');

  // Swaps only ever raise a collection's active generation; a raise seen here is a swap this engine has not been
  // told about yet, so it does the swap's work too.
  const generations = new Map<string, { tenant_id: string; collection: string; generation: number }>();
  for (const c of changes) {
    if (c.op !== 'upsert') continue;
    const key = `${c.document.tenant_id}\u0000${c.document.collection}`;
    const known = generations.get(key);
    if (!known || c.active_generation > known.generation) {
      generations.set(key, { tenant_id: c.document.tenant_id, collection: c.document.collection, generation: c.active_generation });
    }
  }
  if (generations.size > 0) {
    const collections = JSON.stringify([...generations.values()]);
    // Holding the collections' rows until commit orders this batch against a concurrent swap, so documents are
    // never judged searchable by a generation that a swap is replacing at that moment.
    await sql`
      select 1 from search_engine.collections c
      join jsonb_to_recordset(${collections}::jsonb) as x(tenant_id text, collection text)
        on c.tenant_id = x.tenant_id and c.collection = x.collection
      order by c.tenant_id, c.collection for update of c`.execute(trx);
    const raised = await sql<{ tenant_id: string; collection: string; active_generation: number }>`
      insert into search_engine.collections as c (tenant_id, collection, active_generation)
      select x.tenant_id, x.collection, x.generation
      from jsonb_to_recordset(${collections}::jsonb) as x(tenant_id text, collection text, generation integer)
      order by 1, 2
      on conflict (tenant_id, collection) do update set active_generation = excluded.active_generation
        where c.active_generation < excluded.active_generation
      returning c.tenant_id, c.collection, c.active_generation, (c.xmax::text <> '0') as updated`.execute(trx);
    for (const row of raised.rows as Array<(typeof raised.rows)[number] & { updated: boolean }>) {
      if (row.updated) await activate(trx, row.tenant_id, row.collection, row.active_generation);
    }
  }

  if (upserts.length > 0) {
    const rows = upserts.map(({ document }) => documentRow(cleanJson(document)));
    // A version not newer than the stored one (tombstones included) changes nothing; a generation below the active
    // one never becomes searchable again, so it is not stored at all.
    // The document and, beside it, what aggregation reads of it (document_values), for every row the insert wrote.
    await sql`
      with x as materialized (
        select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(tenant_id text, record_id text,
          version bigint, collection text, generation integer, record_type text, name text, description text,
          description_llm text, data jsonb, source_type text, status text, visibility text, updated_at text,
          vocabulary text, identifiers jsonb, name_key text, name_text text, body_text text, data_text text,
          "values" jsonb, nums jsonb)),
      written as (
        insert into search_engine.documents as d (tenant_id, record_id, version, removed, searchable, collection,
          generation, record_type, name, description, description_llm, data, source_type, status, visibility,
          updated_at, vocabulary, identifiers, name_key, tsv)
        select x.tenant_id, x.record_id, x.version, false, x.status = 'active' and x.generation = c.active_generation,
          x.collection, x.generation, x.record_type, x.name, x.description, x.description_llm, x.data, x.source_type,
          x.status, x.visibility, x.updated_at, x.vocabulary,
          array(select jsonb_array_elements_text(x.identifiers)), x.name_key,
          setweight(to_tsvector('simple', x.name_text), 'A') || setweight(to_tsvector('simple', x.body_text), 'B') || setweight(to_tsvector('simple', x.data_text), 'C')
        from x join search_engine.collections c on c.tenant_id = x.tenant_id and c.collection = x.collection
        where x.generation >= c.active_generation
        order by x.tenant_id, x.record_id
        on conflict (tenant_id, record_id) do update set
          version = excluded.version, removed = false, searchable = excluded.searchable,
          collection = excluded.collection, generation = excluded.generation, record_type = excluded.record_type,
          name = excluded.name, description = excluded.description, description_llm = excluded.description_llm,
          data = excluded.data, source_type = excluded.source_type, status = excluded.status,
          visibility = excluded.visibility, updated_at = excluded.updated_at, vocabulary = excluded.vocabulary,
          identifiers = excluded.identifiers,
          name_key = excluded.name_key, tsv = excluded.tsv
        where d.version < excluded.version
        returning d.tenant_id, d.record_id, d.searchable)
      insert into search_engine.document_values as v (tenant_id, record_id, collection, generation, status, searchable,
        visibility, record_type, data, nums)
      select x.tenant_id, x.record_id, x.collection, x.generation, x.status, w.searchable, x.visibility,
        x.record_type, x."values", x.nums
      from written w join x on x.tenant_id = w.tenant_id and x.record_id = w.record_id
      order by x.tenant_id, x.record_id
      on conflict (tenant_id, record_id) do update set
        collection = excluded.collection, generation = excluded.generation, status = excluded.status,
        searchable = excluded.searchable, visibility = excluded.visibility, record_type = excluded.record_type,
        data = excluded.data, nums = excluded.nums`.execute(trx);
    const kinds = fieldKindRows(upserts.map((c) => c.document));
    if (kinds.length > 0) {
      await sql`
        insert into search_engine.field_kinds (tenant_id, collection, field, kind)
        select x.tenant_id, x.collection, x.field, x.kind
        from jsonb_to_recordset(${JSON.stringify(kinds)}::jsonb) as x(tenant_id text, collection text, field text, kind text)
        order by 1, 2, 3, 4
        on conflict do nothing`.execute(trx);
    }
    const words = vocabularyRows(rows);
    if (words.length > 0) {
      // In one order, so concurrent batches sharing words never wait on each other in a cycle.
      await sql`
        insert into search_engine.vocabulary (word, tenant_id, collection)
        select x.word, x.tenant_id, x.collection
        from jsonb_to_recordset(${JSON.stringify(words)}::jsonb) as x(word text, tenant_id text, collection text)
        order by 1, 2, 3
        on conflict do nothing`.execute(trx);
    }
  }

  if (removes.length > 0) {
    const rows = removes.map(({ tenant_id, record_id, version }) => ({ tenant_id, record_id, version }));
    // The tombstone keeps the version, so a late delivery of an older upsert cannot bring the record back.
    await sql`
      with gone as (
        insert into search_engine.documents as d (tenant_id, record_id, version, removed, searchable)
        select x.tenant_id, x.record_id, x.version, true, false
        from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(tenant_id text, record_id text, version bigint)
        order by x.tenant_id, x.record_id
        on conflict (tenant_id, record_id) do update set
          version = excluded.version, removed = true, searchable = false, record_type = null, name = null,
          description = null, description_llm = null, data = null, source_type = null, status = null,
          visibility = null, updated_at = null, vocabulary = null, identifiers = '{}', name_key = null, tsv = null
        where d.version <= excluded.version and not d.removed
        returning d.tenant_id, d.record_id)
      delete from search_engine.document_values v using gone g
      where v.tenant_id = g.tenant_id and v.record_id = g.record_id`.execute(trx);
  }
}

/** Points the collection at `generation` unless it already has a newer one. */
async function swapActiveGeneration(
  trx: Transaction<any>,
  tenant_id: string,
  collection: string,
  generation: number,
): Promise<number> {
  // Swaps only ever raise the generation: a late redelivery of an older swap must not point the collection at a
  // generation whose documents are gone.
  const { rows } = await sql<{ active_generation: number }>`
    insert into search_engine.collections (tenant_id, collection, active_generation)
    values (${tenant_id}, ${collection}, ${generation})
    on conflict (tenant_id, collection) do update
      set active_generation = greatest(search_engine.collections.active_generation, excluded.active_generation)
    returning active_generation`.execute(trx);
  return rows[0]?.active_generation === generation ? activate(trx, tenant_id, collection, generation) : 0;
}

/**
 * Makes `generation` the searchable one: older generations' rows go, the new generation's active rows turn on.
 * Answers how many rows changed.
 */
async function activate(trx: Transaction<any>, tenant_id: string, collection: string, generation: number): Promise<number> {
  // The same three statements on document_values (which holds no tombstones), whose rows follow their documents'.
  const statements = (table: Fragment, live: Fragment) => [
    sql`
      delete from ${table}
      where tenant_id = ${tenant_id} and collection = ${collection} and generation < ${generation}`,
    sql`
      update ${table} set searchable = (status = 'active')
      where tenant_id = ${tenant_id} and collection = ${collection} and generation = ${generation}
        and ${live} and searchable <> (status = 'active')`,
    sql`
      update ${table} set searchable = false
      where tenant_id = ${tenant_id} and collection = ${collection} and generation > ${generation} and searchable`,
  ];
  let changed = 0;
  for (const statement of statements(sql`search_engine.documents`, sql`not removed`)) {
    changed += Number((await statement.execute(trx)).numAffectedRows ?? 0);
  }
  for (const statement of statements(sql`search_engine.document_values`, sql`true`)) await statement.execute(trx);
  return changed;
}

/** The row shape the upsert statement reads: the document plus its identifiers and search texts. */
function documentRow(document: IndexDocument) {
  const identifiers = identifiersOf(document);
  const description = document.description ?? '';
  return {
    tenant_id: document.tenant_id,
    record_id: document.record_id,
    version: document.version,
    collection: document.collection,
    generation: document.generation,
    record_type: document.record_type,
    name: document.name,
    description: document.description,
    description_llm: document.description_llm,
    data: document.collection_data,
    source_type: document.source_type,
    status: document.status,
    visibility: document.visibility,
    updated_at: document.updated_at,
    vocabulary: document.vocabulary ?? null,
    identifiers,
    name_key: searchText(document.name.slice(0, MAX_NAME_TEXT)),
    name_text: `${searchText(document.name.slice(0, MAX_NAME_TEXT))} ${identifiers.join(' ').toLowerCase()}`,
    // The generated description is not searched: records builds it from the name, record type, collection and
    // collection_data keys and values, so its only words of its own are the template's and the keys, which every
    // record of a collection shares ("film", "collection", "gross") and which would match them all.
    body_text: searchText(description.slice(0, MAX_DESCRIPTION_TEXT)),
    data_text: searchText(dataText(document.collection_data)),
    ...shortValues(document.collection_data),
  };
}

/** The longest string (in characters) and array that document_values holds; anything longer is a 'long' field. */
const SHORT_TEXT = 64;
const SHORT_ARRAY = 32;

/**
 * How document_values holds a collection_data value: 'short' (a number, a boolean, a string of at most SHORT_TEXT
 * characters), 'array' (at most SHORT_ARRAY of those or nulls), 'long' (left out: a longer string, a longer or nested
 * array) or 'none' (left out: an object or null, which no filter matches and no group counts). Migration 5 decides
 * the same in SQL for the documents written before it.
 */
function valueKind(value: unknown): 'short' | 'array' | 'long' | 'none' {
  const scalar = (v: unknown) => typeof v === 'number' || typeof v === 'boolean' || (typeof v === 'string' && [...v].length <= SHORT_TEXT);
  if (typeof value === 'string') return scalar(value) ? 'short' : 'long';
  if (typeof value === 'number' || typeof value === 'boolean') return 'short';
  if (Array.isArray(value)) return value.length <= SHORT_ARRAY && value.every((v) => v === null || scalar(v)) ? 'array' : 'long';
  return 'none';
}

/** The collection_data fields document_values holds (`values`), and the numbers among them (`nums`). */
function shortValues(data: Record<string, unknown>): { values: Record<string, unknown>; nums: Record<string, number> } {
  const values: Record<string, unknown> = {};
  const nums: Record<string, number> = {};
  for (const [field, value] of Object.entries(data ?? {})) {
    const kind = valueKind(value);
    if (kind === 'short' || kind === 'array') values[field] = value;
    if (typeof value === 'number') nums[field] = value;
  }
  return { values, nums };
}

/** The batch's fields held as arrays or long values, per collection (field_kinds; see aggregation.ts). */
function fieldKindRows(documents: IndexDocument[]): Array<{ tenant_id: string; collection: string; field: string; kind: string }> {
  const seen = new Set<string>();
  const out: Array<{ tenant_id: string; collection: string; field: string; kind: string }> = [];
  for (const d of documents) {
    for (const [field, value] of Object.entries(d.collection_data ?? {})) {
      const kind = valueKind(value);
      if (kind !== 'array' && kind !== 'long') continue;
      const key = JSON.stringify([d.tenant_id, d.collection, field, kind]);
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ tenant_id: d.tenant_id, collection: d.collection, field, kind });
    }
  }
  return out;
}

/** The distinct words of a batch's documents that typo tolerance may expand a query word to (see typos.ts). */
function vocabularyRows(rows: Array<ReturnType<typeof documentRow>>): Array<{ word: string; tenant_id: string; collection: string }> {
  // A set of words per collection: a batch is mostly one collection's, so this spares a composed key per word.
  const seen = new Map<string, Set<string>>();
  const out: Array<{ word: string; tenant_id: string; collection: string }> = [];
  for (const row of rows) {
    const scope = `${row.tenant_id}\u0000${row.collection}`;
    let words = seen.get(scope);
    if (!words) seen.set(scope, (words = new Set()));
    for (const text of [row.name_key, row.body_text, row.data_text]) {
      for (const word of text.split(' ')) {
        if (words.has(word) || !isVocabularyWord(word)) continue;
        words.add(word);
        out.push({ word, tenant_id: row.tenant_id, collection: row.collection });
      }
    }
  }
  return out;
}
