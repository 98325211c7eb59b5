import { randomUUID } from 'node:crypto';
import { openDatabase, sql, type Database } from '@trove/db';
import { eventually } from '@trove/testing';
import type { SearchScope } from '../port';
import { PostgresSearchEngine } from './engine';
import { doc } from '../__tests__/documents';

/** What only the PostgreSQL engine can show: behaviour the contract cannot see from outside. */

let database: Database;
let engine: PostgresSearchEngine;

beforeAll(async () => {
  database = await openDatabase({ inMemory: true });
  engine = new PostgresSearchEngine(database);
  await engine.init();
});

afterAll(async () => {
  await engine.close();
  await database.close();
});

it('fails only the item PostgreSQL refuses when validation let it through, writing the rest', async () => {
  const t = randomUUID();
  const good = doc(t, { name: 'Fine bolt' });
  // Valid as a number, but beyond the integer column: the batch statement fails and items are retried one by one.
  const huge = doc(t, { name: 'Huge bolt', generation: 2 ** 40 });
  const outcomes = await engine.apply([
    { op: 'upsert', document: good, active_generation: 1 },
    { op: 'upsert', document: huge, active_generation: 1 },
  ]);
  expect(outcomes.map((o) => o.status)).toEqual(['indexed', 'failed']);
  expect(outcomes[1]!.error).toMatch(/range/i);
  const found = await engine.search({ scope: own(t), filters: [], limit: 10, offset: 0 });
  expect(found.hits.map((h) => h.document.name)).toEqual(['Fine bolt']);
});

it('counts exactly up to a thousand matches, estimates above (within 10 %, never above the collection), and counts up to ten thousand exactly when asked', async () => {
  const t = randomUUID();
  // Other tenants' documents make the table large enough that a sample would be a guess.
  const others = randomUUID();
  const filler = Array.from({ length: 6_000 }, (_, i) => doc(others, { name: `Bracket ${i}`, description: 'x'.repeat(200) }));
  const docs = Array.from({ length: 3_000 }, (_, i) => doc(t, { name: `Bracket ${i}`, collection_data: { n: i } }));
  for (const batch of [filler, docs]) {
    for (let i = 0; i < batch.length; i += 1_000) {
      await engine.apply(batch.slice(i, i + 1_000).map((document) => ({ op: 'upsert' as const, document, active_generation: 1 })));
    }
  }
  const text = { type: 'keyword' as const, query: 'bracket', identifiers: [] };
  const near = (total: { total_estimate: number }) => {
    expect(total.total_estimate).toBeGreaterThanOrEqual(2_700);
    expect(total.total_estimate).toBeLessThanOrEqual(3_000);
  };
  // Every kind of search counts up to a thousand and estimates above, the same on every page (a keyword search
  // reads no more matches than it counts).
  const first = await engine.search({ scope: own(t), text, filters: [], limit: 20, offset: 0 });
  const later = await engine.search({ scope: own(t), text, filters: [], limit: 20, offset: 500 });
  expect(first.total_is_estimate).toBe(true);
  near(first);
  expect(later.total_estimate).toBe(first.total_estimate);
  const naturally = { ...text, type: 'natural_language' as const, query: 'a bracket for me' };
  const natural = await engine.search({ scope: own(t), text: naturally, filters: [], limit: 20, offset: 0 });
  expect(natural.total_is_estimate).toBe(true);
  near(natural);
  expect((await engine.search({ scope: own(t), text: naturally, filters: [], limit: 20, offset: 200 })).total_estimate).toBe(natural.total_estimate);
  const sort = { field: 'n', direction: 'desc' as const };
  const sorted = await engine.search({ scope: own(t), text, filters: [], sort, limit: 20, offset: 0 });
  expect(sorted.total_is_estimate).toBe(true);
  near(sorted);
  const all = await engine.search({ scope: own(t), filters: [], limit: 5, offset: 0 });
  expect(all.total_is_estimate).toBe(true);
  near(all);
  // Up to a thousand, exact.
  const few = await engine.search({ scope: own(t), text, filters: [{ field: 'n', op: 'lt', value: 700 }], limit: 20, offset: 0 });
  expect(few).toMatchObject({ total_estimate: 700, total_is_estimate: false });
  const listed = await engine.search({ scope: own(t), filters: [{ field: 'n', op: 'gte', value: 2_001 }], limit: 5, offset: 0 });
  expect(listed).toMatchObject({ total_estimate: 999, total_is_estimate: false });
  // Asked for, exact up to ten thousand.
  for (const query of [
    { scope: own(t), text, filters: [], limit: 20, offset: 0 },
    { scope: own(t), text: naturally, filters: [], limit: 20, offset: 0 },
    { scope: own(t), text, filters: [], sort, limit: 20, offset: 0 },
    { scope: own(t), filters: [], limit: 5, offset: 0 },
  ]) {
    expect(await engine.search({ ...query, exact_total: true })).toMatchObject({ total_estimate: 3_000, total_is_estimate: false });
  }
});

it('estimates from how far a count read into the collection only when its matches lay evenly there', async () => {
  // A count reads its matches in table order and stops past a thousand; where it stopped says how densely the rest
  // of the collection holds them when they lay evenly over what it read, and nothing when they bunched together.
  const load = async (t: string, names: string[]) => {
    for (let i = 0; i < names.length; i += 1_000) {
      const batch = names.slice(i, i + 1_000).map((name) => doc(t, { name }));
      await engine.apply(batch.map((document) => ({ op: 'upsert' as const, document, active_generation: 1 })));
    }
  };
  const [even, bunched] = [randomUUID(), randomUUID()];
  // Every other document a hinge: the thousandth lies about five sixths of the way in.
  await load(even, Array.from({ length: 2_400 }, (_, i) => (i % 2 === 0 ? `Hinge ${i}` : `Latch ${i}`)));
  // The hinges bunched together from 1,800 on: the thousandth lies where about 68 % of the collection lies before it,
  // as with the even ones, but read as evenly spread it would say 1,465; what lies beyond is counted or sampled.
  await load(bunched, Array.from({ length: 4_100 }, (_, i) => (i >= 1_800 && i < 3_000 ? `Hinge ${i}` : `Latch ${i}`)));
  // Analysed, as the engine's own pass does soon after a load: planned without statistics, the count walks the name index.
  await engine.maintain();
  for (const t of [even, bunched]) {
    for (const text of [
      { type: 'keyword' as const, query: 'hinge', identifiers: [] },
      { type: 'natural_language' as const, query: 'a hinge for the door', identifiers: [] },
    ]) {
      const found = await engine.search({ scope: own(t), text, filters: [], limit: 10, offset: 0 });
      expect(found.total_is_estimate).toBe(true);
      expect(found.total_estimate).toBeGreaterThanOrEqual(1_080);
      expect(found.total_estimate).toBeLessThanOrEqual(1_320);
    }
  }
});

it('keeps staging and removed rows out of the search indexes but remembers their versions', async () => {
  const t = randomUUID();
  const d = doc(t, { generation: 2 });
  await engine.apply([{ op: 'upsert', document: d, active_generation: 1 }]);
  await engine.apply([{ op: 'remove', tenant_id: t, record_id: randomUUID(), version: 5 }]);
  const rows = await sql<{ searchable: boolean; removed: boolean; version: number }>`
    select searchable, removed, version from search_engine.documents where tenant_id = ${t} order by removed`.execute(database.db);
  expect(rows.rows).toEqual([
    { searchable: false, removed: false, version: 1 },
    { searchable: false, removed: true, version: 5 },
  ]);
});

function own(tenant_id: string): SearchScope {
  return { kind: 'private', tenant_id, collection: 'parts' };
}

describe('the maintenance the engine does itself, where no autovacuum runs (PGlite)', () => {
  let db: Database;
  let fresh: PostgresSearchEngine;

  beforeEach(async () => {
    db = await openDatabase({ inMemory: true });
    fresh = new PostgresSearchEngine(db);
    await fresh.init();
  });

  afterEach(async () => {
    await fresh.close();
    await db.close();
  });

  const table = async (name = 'search_engine.documents') =>
    (await sql<{ rows: number }>`select reltuples::float8 as rows from pg_class where oid = ${name}::regclass`.execute(db.db)).rows[0]!;
  const upsert = (docs: ReturnType<typeof doc>[]) => fresh.apply(docs.map((document) => ({ op: 'upsert' as const, document, active_generation: 1 })));

  it('analyses a small collection soon after it is loaded, without being asked', async () => {
    const t = randomUUID();
    expect((await table()).rows).toBeLessThan(0); // never analysed
    await upsert(Array.from({ length: 300 }, (_, i) => doc(t, { name: `Washer ${i}` })));
    await eventually(async () => expect((await table()).rows).toBe(300), 5_000);
    // and what aggregation reads beside it
    await eventually(async () => expect((await table('search_engine.document_values')).rows).toBe(300), 5_000);
  });

  it('merges the GIN indexes’ pending lists, so no lookup scans them', async () => {
    const t = randomUUID();
    await upsert(Array.from({ length: 500 }, (_, i) => doc(t, { name: `Hex bolt M${i}`, collection_data: { ean: String(4006381333931 + i) } })));
    await fresh.maintain();
    const { rows } = await sql<{ merged: number }>`
      select coalesce(sum(gin_clean_pending_list(i.indexrelid)), 0)::int as merged
      from pg_index i join pg_class ic on ic.oid = i.indexrelid join pg_am am on am.oid = ic.relam
      where i.indrelid = 'search_engine.documents'::regclass and am.amname = 'gin'`.execute(db.db);
    expect(rows[0]!.merged).toBe(0);
  });

  it('reclaims what upserts leave behind: the tables stop growing when the same records are written again', async () => {
    const t = randomUUID();
    const docs = Array.from({ length: 400 }, (_, i) => doc(t, { name: `Bracket ${i}` }));
    // The documents and what aggregation reads of them, both rewritten on every upsert.
    const size = async (table: string) =>
      Number((await sql<{ bytes: string }>`select pg_total_relation_size(${table}::regclass) as bytes`.execute(db.db)).rows[0]!.bytes);
    const sizes: number[][] = [];
    for (let version = 1; version <= 6; version++) {
      await upsert(docs.map((d) => ({ ...d, version, description: `revision ${version}` })));
      await fresh.maintain();
      sizes.push([await size('search_engine.documents'), await size('search_engine.document_values')]);
    }
    // Each round replaces every row and its index entries; once the space of the round before is reclaimed, it is used again.
    for (const table of [0, 1]) expect(sizes[5]![table]!).toBeLessThanOrEqual(sizes[2]![table]! * 1.15);
    const found = await fresh.search({ scope: own(t), text: { type: 'keyword', query: 'revision 6', identifiers: [] }, filters: [], limit: 5, offset: 0 });
    expect(found.total_estimate).toBe(400);
  });
});
