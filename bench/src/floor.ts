/**
 * The floor (bench/README.md): the catalogue in one plain PostgreSQL table beside the system's tables (same database,
 * same server), with a stored generated tsvector (name weight A, description B, the string values of data C), a GIN
 * index on it and one on the identifiers, loaded with 1,000-row INSERTs on 2 connections. Its queries are sent one
 * after another on one connection for latency, and on `concurrency` connections for throughput:
 *
 * - keyword: `ts_rank_cd` top page of `tsv @@ to_tsquery(every word, the last as a prefix)`;
 * - natural-language: the same over any of the question's content words (what the engine matches them with);
 * - identifier: `identifiers @> ARRAY[$1]`, the page in no particular order;
 * - filtered: keyword plus `data @> {material}`, `{in_stock}`, `{size}`, `{rohs}` and a numeric price range;
 * - aggregate: one `GROUP BY GROUPING SETS ((field), ())` over the same values held in plain typed columns (material,
 *   brand, size, standard, in_stock, price, length_mm): the groups and the totals with their stats in one scan.
 *
 * Every match is ranked: this is what a design that ranks a bounded candidate set (the engine's) is measured against.
 */
import pg from 'pg';
import { queryWords, STOP_WORDS, type Filter } from '@trove/search-engine';
import type { CatalogueRecord } from './catalogue';

export const FLOOR_TABLE = 'public.bench_floor_catalogue';

const CREATE = `
  create table ${FLOOR_TABLE} (
    id uuid primary key,
    tenant_id text not null,
    collection text not null,
    record_type text not null,
    name text not null,
    description text,
    data jsonb not null,
    identifiers text[] not null,
    material text, brand text, size text, standard text, in_stock boolean, price numeric, length_mm numeric,
    tsv tsvector generated always as (
      setweight(to_tsvector('simple', name), 'A')
      || setweight(to_tsvector('simple', coalesce(description, '')), 'B')
      || setweight(jsonb_to_tsvector('simple', data, '["string"]'), 'C')) stored
  );
  create index bench_floor_catalogue_tsv on ${FLOOR_TABLE} using gin (tsv);
  create index bench_floor_catalogue_identifiers on ${FLOOR_TABLE} using gin (identifiers);`;

/** An identifier as the floor stores and looks it up: uppercase, without spaces and dashes ("din-933" is DIN933). */
export function floorIdentifier(raw: string): string {
  return raw.toUpperCase().replace(/[\s-]+/g, '');
}

/** The identifiers a catalogue record is found by. */
function floorIdentifiers(r: CatalogueRecord): string[] {
  return [r.collection_data.ean, r.collection_data.sku, r.collection_data.standard].map(floorIdentifier);
}

/**
 * Creates the floor table and loads `records` with 1,000-row INSERTs (one JSON parameter each) on 2 connections, each
 * its own transactions; answers the rows per second.
 */
export async function loadFloor(url: string, records: CatalogueRecord[], tenant: string, collection: string): Promise<number> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`drop table if exists ${FLOOR_TABLE}`);
  await admin.query(CREATE);
  await admin.end();
  const chunks: string[] = [];
  for (let i = 0; i < records.length; i += 1000) {
    chunks.push(
      JSON.stringify(
        records.slice(i, i + 1000).map((r) => {
          const { description, ...data } = r.collection_data;
          return { id: crypto.randomUUID(), tenant_id: tenant, collection, record_type: 'product', name: r.name, description, data, identifiers: floorIdentifiers(r) };
        }),
      ),
    );
  }
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    [0, 1].map(async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        while (next < chunks.length) {
          const chunk = chunks[next++]!;
          await c.query(
            `insert into ${FLOOR_TABLE} (id, tenant_id, collection, record_type, name, description, data, identifiers,
               material, brand, size, standard, in_stock, price, length_mm)
             select id, tenant_id, collection, record_type, name, description, data, identifiers,
               data ->> 'material', data ->> 'brand', data ->> 'size', data ->> 'standard', (data ->> 'in_stock')::boolean,
               (data ->> 'price')::numeric, (data ->> 'length_mm')::numeric
             from jsonb_to_recordset($1::jsonb) as r(id uuid, tenant_id text, collection text, record_type text, name text,
               description text, data jsonb, identifiers text[])`,
            [chunk],
          );
        }
      } finally {
        await c.end();
      }
    }),
  );
  const rate = records.length / ((performance.now() - t0) / 1000);
  const maintenance = new pg.Client({ connectionString: url });
  await maintenance.connect();
  await maintenance.query(`vacuum (analyze) ${FLOOR_TABLE}`);
  await maintenance.end();
  return rate;
}

/** A query as the floor sends it: its SQL and parameters. */
export interface FloorQuery {
  text: string;
  values: unknown[];
}

const lexeme = (w: string) => `'${w.replace(/'/g, "''")}'`;

/** Every word, the last as a prefix (a keyword query). */
export function keywordTsquery(query: string): string {
  const words = queryWords(query);
  return words.map((w, i) => lexeme(w) + (i === words.length - 1 ? ':*' : '')).join(' & ');
}

/** Any of the content words (a natural-language question). */
export function anyTsquery(query: string): string {
  const words = queryWords(query);
  const content = words.filter((w) => !STOP_WORDS.has(w));
  return [...new Set(content.length > 0 ? content : words)].map(lexeme).join(' | ');
}

function ranked(tenant: string, collection: string, tsquery: string, limit: number, offset: number, extra: string[] = [], extraValues: unknown[] = []): FloorQuery {
  const where = ['tenant_id = $1', 'collection = $2', "tsv @@ to_tsquery('simple', $3)", ...extra].join(' and ');
  return {
    text: `select id, name, data, ts_rank_cd(tsv, to_tsquery('simple', $3)) as rank from ${FLOOR_TABLE} where ${where}
           order by rank desc limit ${limit} offset ${offset}`,
    values: [tenant, collection, tsquery, ...extraValues],
  };
}

export function floorKeyword(tenant: string, collection: string, query: string, limit: number, offset: number): FloorQuery {
  return ranked(tenant, collection, keywordTsquery(query), limit, offset);
}

export function floorNatural(tenant: string, collection: string, query: string, limit: number, offset: number): FloorQuery {
  return ranked(tenant, collection, anyTsquery(query), limit, offset);
}

export function floorIdentifierQuery(tenant: string, collection: string, query: string, limit: number, offset: number): FloorQuery {
  const identifier = floorIdentifier(query);
  return {
    text: `select id, name, data from ${FLOOR_TABLE} where tenant_id = $1 and collection = $2 and identifiers @> array[$3]
           limit ${limit} offset ${offset}`,
    values: [tenant, collection, identifier],
  };
}

/** Keyword plus the filters: equality as `data @>`, ranges on the numeric value. */
export function floorFiltered(tenant: string, collection: string, query: string, filters: Filter[], limit: number, offset: number): FloorQuery {
  const extra: string[] = [];
  const values: unknown[] = [];
  for (const f of filters) {
    const n = 4 + values.length;
    if (f.op === 'eq') {
      extra.push(`data @> $${n}::jsonb`);
      values.push(JSON.stringify({ [f.field]: f.value }));
    } else if (f.op === 'gte' || f.op === 'lte') {
      extra.push(`(data ->> '${f.field.replace(/'/g, "''")}')::numeric ${f.op === 'gte' ? '>=' : '<='} $${n}`);
      values.push(f.value);
    } else throw new Error(`the floor has no ${f.op} filter`);
  }
  return ranked(tenant, collection, keywordTsquery(query), limit, offset, extra, values);
}

/** The floor's typed columns, by the catalogue field they hold. */
const COLUMNS = new Set(['material', 'brand', 'size', 'standard', 'in_stock', 'price', 'length_mm']);

function column(field: string): string {
  if (!COLUMNS.has(field)) throw new Error(`the floor has no column for ${field}`);
  return field;
}

/**
 * An aggregation on the typed columns: equality and numeric ranges as plain comparisons, the group and the totals
 * (count, and min, max and avg of each stats field) in one scan.
 */
export function floorAggregate(tenant: string, collection: string, filters: Filter[], groupBy: string | undefined, stats: string[]): FloorQuery {
  const where = ['tenant_id = $1', 'collection = $2'];
  const values: unknown[] = [tenant, collection];
  for (const f of filters) {
    values.push(f.value);
    const operator = { eq: '=', gte: '>=', lte: '<=', gt: '>', lt: '<' }[f.op as 'eq'];
    if (!operator) throw new Error(`the floor has no ${f.op} filter`);
    where.push(`${column(f.field)} ${operator} $${values.length}`);
  }
  const aggregates = ['count(*) as n', ...stats.flatMap((f) => [`min(${column(f)})`, `max(${column(f)})`, `avg(${column(f)})`])];
  const group = groupBy ? column(groupBy) : undefined;
  return {
    text: `select ${group ? `${group} as value, ` : ''}${aggregates.join(', ')} from ${FLOOR_TABLE} where ${where.join(' and ')}
           ${group ? `group by grouping sets ((${group}), ())` : ''}`,
    values,
  };
}

/** A pool of `size` connections to the floor's database, for its passes. */
export function floorPool(url: string, size: number): pg.Pool {
  return new pg.Pool({ connectionString: url, max: size });
}
