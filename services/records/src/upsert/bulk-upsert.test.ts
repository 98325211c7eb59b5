import request from 'supertest';
import {
  BULK_UPSERT_MAX_ITEMS,
  RECORDS_BULK_UPSERT,
  RECORDS_INDEXING_SUMMARY,
  RECORDS_REQUEUE,
  TOPICS,
  bulkUpsertResponse,
  type RecordChangedEvent,
} from '@trove/contracts';
import { createTestDatabase } from '@trove/testing';
import { migrate, sql } from '@trove/db';
import { describeRecord } from '../index';
import { contentHash } from '../records/content-hash';
import { migrations } from '../migrations';
import { countIndexingBacklog } from '../indexing/store';
import { findRecord } from '../records/store';
import type { Db } from '../shared/schema';
import { bolt, eventually, newTenant, startRecords, type Client, type Harness } from '../../test/helpers';

let h: Harness;
let tenant: string;
let api: Client;

beforeAll(async () => {
  h = await startRecords();
});
afterAll(() => h.stop());
beforeEach(() => {
  tenant = newTenant();
  api = h.as(tenant, ['upload']);
});

interface Item {
  name: string;
  source_id?: string | null;
  collection_data?: Record<string, unknown>;
  description?: string | null;
  source_url?: string | null;
}

const chunk = (records: Item[], overrides: Record<string, unknown> = {}) => ({
  collection: 'fasteners',
  record_type: 'product',
  source_type: 'file_upload',
  source_name: 'catalogue.csv',
  records,
  ...overrides,
});

async function upsert(records: Item[], overrides: Record<string, unknown> = {}, client: Client = api) {
  const res = await client.post(RECORDS_BULK_UPSERT.path, chunk(records, overrides));
  expect(res.status).toBe(200);
  return bulkUpsertResponse.parse(res.body);
}

const read = async (id: string) => (await h.as(tenant).get(`/records/${id}`)).body;
const statuses = (r: { results: Array<{ status: string }> }) => r.results.map((x) => x.status);
const countRecords = async (tenantId = tenant) =>
  Number((await sql<{ n: number }>`select count(*)::int as n from records.records where tenant_id = ${tenantId}`.execute(h.svc.database.db)).rows[0]!.n);
const eventsOf = (id: string) => h.changes.filter((e) => e.record_id === id);

describe('POST /internal/records/bulk-upsert: creating', () => {
  it('creates records with the source, the collection defaults and a generated description, readable by id', async () => {
    const out = await upsert([
      { name: 'M8 hex bolt', source_id: 'A-1', collection_data: { material: 'steel', price: 0.12 }, description: 'Zinc plated', source_url: 'https://erp.example/A-1' },
      { name: 'M8 hex nut', collection_data: { material: 'steel' } },
    ]);
    expect(statuses(out)).toEqual(['created', 'created']);
    const [first, second] = await Promise.all(out.results.map((r) => read(r.id)));
    expect(first).toMatchObject({
      id: out.results[0]!.id,
      tenant_id: tenant,
      name: 'M8 hex bolt',
      collection: 'fasteners',
      record_type: 'product',
      collection_data: { material: 'steel', price: 0.12 },
      description: 'Zinc plated',
      source_id: 'A-1',
      source_url: 'https://erp.example/A-1',
      source_type: 'file_upload',
      source_name: 'catalogue.csv',
      status: 'active',
      visibility: 'private',
      indexing_status: 'pending',
      generation: 1,
      version: 1,
    });
    expect(first.description_llm).toBe(
      describeRecord({ name: 'M8 hex bolt', record_type: 'product', collection: 'fasteners', collection_data: { material: 'steel', price: 0.12 } }),
    );
    expect(first.created_at).toBe(first.updated_at);
    expect(second).toMatchObject({ name: 'M8 hex nut', source_id: null, description: null, source_url: null, source_type: 'file_upload' });
  });

  it.each(['webhook', 'connector', 'api'])('stores source_type %s', async (sourceType) => {
    const out = await upsert([{ name: 'Washer' }], { source_type: sourceType, source_name: null });
    expect(await read(out.results[0]!.id)).toMatchObject({ source_type: sourceType, source_name: null });
  });

  it("gives new records the collection's default visibility", async () => {
    await h.as(tenant).patch('/collections/public-parts/default-visibility', { default_visibility: 'public' });
    const out = await upsert([{ name: 'Public bolt' }], { collection: 'public-parts' });
    expect((await read(out.results[0]!.id)).visibility).toBe('public');
  });

  it('creates the collection on first use, so its default can be changed afterwards', async () => {
    await upsert([{ name: 'First' }], { collection: 'brand-new' });
    const res = await h.as(tenant).patch('/collections/brand-new/default-visibility', { default_visibility: 'public' });
    expect(res.status).toBe(200);
    const out = await upsert([{ name: 'Second' }], { collection: 'brand-new' });
    expect((await read(out.results[0]!.id)).visibility).toBe('public');
  });

  it('makes uploaded records findable by the name search of the listing', async () => {
    await upsert([{ name: 'DIN-933 M8x20 Sechskantschraube' }], { collection: 'listed' });
    const list = await h.as(tenant).get('/records?collection=listed&q=sechskant');
    expect(list.body.items.map((i: { name: string }) => i.name)).toEqual(['DIN-933 M8x20 Sechskantschraube']);
    expect((await h.as(tenant).get('/records?collection=listed&q=m8x20%20din')).body.items).toHaveLength(1);
  });

  it('writes a chunk of 1,000 records', async () => {
    const records = Array.from({ length: BULK_UPSERT_MAX_ITEMS }, (_, i) => ({ name: `Bolt ${i}`, source_id: `S-${i}`, collection_data: { i } }));
    const out = await upsert(records);
    expect(out.results).toHaveLength(1000);
    expect(new Set(statuses(out))).toEqual(new Set(['created']));
    expect(new Set(out.results.map((r) => r.id)).size).toBe(1000);
    expect(await countRecords()).toBe(1000);
    expect(await read(out.results[999]!.id)).toMatchObject({ name: 'Bolt 999', source_id: 'S-999', collection_data: { i: 999 } });
  });

  it('accepts a body over the service-wide JSON limit', async () => {
    const description = 'x'.repeat(3000);
    const records = Array.from({ length: 1000 }, (_, i) => ({ name: `Long ${i}`, description }));
    const res = await api.post(RECORDS_BULK_UPSERT.path, chunk(records));
    expect(JSON.stringify(chunk(records)).length).toBeGreaterThan(2 * 1024 * 1024);
    expect(res.status).toBe(200);
  });
});

describe('upsert by source_id', () => {
  it('skips identical content, whatever the order of its keys, and keeps the record as it was', async () => {
    const [created] = (await upsert([{ name: 'Bolt', source_id: 'A', collection_data: { a: 1, b: { c: 2, d: 3 } } }])).results;
    const again = await upsert([{ name: 'Bolt', source_id: 'A', collection_data: { b: { d: 3, c: 2 }, a: 1 } }]);
    expect(again.results).toEqual([{ status: 'skipped', id: created!.id }]);
    expect(await read(created!.id)).toMatchObject({ version: 1 });
  });

  it('replaces name and collection_data of a changed record, keeps what the upload does not carry, and rebuilds the description', async () => {
    const [created] = (
      await upsert([{ name: 'Bolt', source_id: 'A', collection_data: { material: 'steel', price: 1 }, description: 'From the API', source_url: 'https://a' }])
    ).results;
    const before = await read(created!.id);
    await new Promise((r) => setTimeout(r, 5));
    const out = await upsert([{ name: 'Bolt v2', source_id: 'A', collection_data: { material: 'brass' }, source_url: 'https://b' }], {
      source_type: 'webhook',
      source_name: 'other',
    });
    expect(out.results).toEqual([{ status: 'updated', id: created!.id }]);
    const after = await read(created!.id);
    expect(after).toMatchObject({
      name: 'Bolt v2',
      collection_data: { material: 'brass' },
      description: 'From the API',
      source_url: 'https://b',
      version: 2,
      indexing_status: 'pending',
      created_at: before.created_at,
    });
    expect(after.updated_at > before.updated_at).toBe(true);
    expect(after.description_llm).toBe('Bolt v2 is a product in the fasteners collection with material brass.');
    // Where the record came from stays as it was first stored.
    expect(after).toMatchObject({ source_type: 'file_upload', source_name: 'catalogue.csv' });
  });

  it('updates a record that an API client created with a source_id', async () => {
    const created = await h.as(tenant).post('/records', bolt({ source_id: 'ERP-1' }));
    const out = await upsert([{ name: 'M8 hex bolt', source_id: 'ERP-1', collection_data: { material: 'steel' } }]);
    expect(out.results).toEqual([{ status: 'updated', id: created.body.id }]);
    expect(await read(created.body.id)).toMatchObject({ version: 2, source_type: 'api', collection_data: { material: 'steel' } });
  });

  it('matches within the collection only, and not archived records', async () => {
    const [first] = (await upsert([{ name: 'Bolt', source_id: 'A' }])).results;
    const other = await upsert([{ name: 'Bolt', source_id: 'A' }], { collection: 'elsewhere' });
    expect(other.results[0]).toMatchObject({ status: 'created' });
    expect(other.results[0]!.id).not.toBe(first!.id);

    await h.as(tenant).delete(`/records/${first!.id}`);
    const afterArchive = await upsert([{ name: 'Bolt', source_id: 'A' }]);
    expect(afterArchive.results[0]).toMatchObject({ status: 'created' });
    expect(afterArchive.results[0]!.id).not.toBe(first!.id);
    expect(await read(first!.id)).toMatchObject({ status: 'archived', version: 2 });
  });

  it("never matches another tenant's source_id", async () => {
    const [mine] = (await upsert([{ name: 'Bolt', source_id: 'SHARED', collection_data: { v: 1 } }])).results;
    const otherTenant = newTenant();
    const theirs = await upsert([{ name: 'Bolt', source_id: 'SHARED', collection_data: { v: 2 } }], {}, h.as(otherTenant, ['upload']));
    expect(theirs.results[0]).toMatchObject({ status: 'created' });
    expect(theirs.results[0]!.id).not.toBe(mine!.id);
    expect(await read(mine!.id)).toMatchObject({ version: 1, collection_data: { v: 1 } });
    // Identical content does not match across tenants either.
    const same = await upsert([{ name: 'Bolt', collection_data: { v: 1 } }], {}, h.as(otherTenant, ['upload']));
    expect(same.results[0]).toMatchObject({ status: 'created' });
  });
});

describe('dedup without source_id', () => {
  it('skips content identical to a live record of the same collection and record type', async () => {
    const [first] = (await upsert([{ name: 'Nut', collection_data: { size: 'M8' } }])).results;
    const again = await upsert([{ name: 'Nut', collection_data: { size: 'M8' } }]);
    expect(again.results).toEqual([{ status: 'skipped', id: first!.id }]);
  });

  it('matches a stored record that has a source_id', async () => {
    const [first] = (await upsert([{ name: 'Nut', source_id: 'N-1', collection_data: { size: 'M8' } }])).results;
    expect((await upsert([{ name: 'Nut', collection_data: { size: 'M8' } }])).results).toEqual([{ status: 'skipped', id: first!.id }]);
  });

  it('creates when the record type, the collection or any content differs, or the match is archived', async () => {
    const [first] = (await upsert([{ name: 'Nut', collection_data: { size: 'M8' } }])).results;
    expect(statuses(await upsert([{ name: 'Nut', collection_data: { size: 'M8' } }], { record_type: 'spare' }))).toEqual(['created']);
    expect(statuses(await upsert([{ name: 'Nut', collection_data: { size: 'M8' } }], { collection: 'other' }))).toEqual(['created']);
    expect(statuses(await upsert([{ name: 'Nut', collection_data: { size: 'M10' } }]))).toEqual(['created']);
    expect(statuses(await upsert([{ name: 'Nut ', collection_data: { size: 'M8' } }]))).toEqual(['created']);
    await h.as(tenant).delete(`/records/${first!.id}`);
    expect(statuses(await upsert([{ name: 'Nut', collection_data: { size: 'M8' } }]))).toEqual(['created']);
  });
});

describe('duplicates within one chunk', () => {
  it('skips an item identical to an earlier one, with or without source_id', async () => {
    const out = await upsert([
      { name: 'A', source_id: 'A', collection_data: { v: 1 } },
      { name: 'B', collection_data: { v: 1 } },
      { name: 'A', source_id: 'A', collection_data: { v: 1 } },
      { name: 'B', collection_data: { v: 1 } },
    ]);
    expect(statuses(out)).toEqual(['created', 'created', 'skipped', 'skipped']);
    expect(out.results[2]!.id).toBe(out.results[0]!.id);
    expect(out.results[3]!.id).toBe(out.results[1]!.id);
    expect(await countRecords()).toBe(2);
  });

  it('lets a later item with the same source_id win, writing the record once', async () => {
    const out = await upsert([
      { name: 'A', source_id: 'A', collection_data: { v: 1 }, description: 'kept' },
      { name: 'A', source_id: 'A', collection_data: { v: 2 } },
      { name: 'A', source_id: 'A', collection_data: { v: 3 } },
    ]);
    expect(statuses(out)).toEqual(['created', 'updated', 'updated']);
    const id = out.results[0]!.id;
    expect(new Set(out.results.map((r) => r.id))).toEqual(new Set([id]));
    expect(await read(id)).toMatchObject({ collection_data: { v: 3 }, description: 'kept', version: 1 });
    expect(await countRecords()).toBe(1);
  });

  it('updates a stored record once when several items change it', async () => {
    const [stored] = (await upsert([{ name: 'A', source_id: 'A', collection_data: { v: 1 } }])).results;
    const out = await upsert([
      { name: 'A', source_id: 'A', collection_data: { v: 2 } },
      { name: 'A', source_id: 'A', collection_data: { v: 3 } },
    ]);
    expect(out.results).toEqual([
      { status: 'updated', id: stored!.id },
      { status: 'updated', id: stored!.id },
    ]);
    expect(await read(stored!.id)).toMatchObject({ collection_data: { v: 3 }, version: 2 });
  });
});

describe('records.changed events', () => {
  it('announces each created and updated record once, with its version, and nothing for skipped items', async () => {
    const first = await upsert([
      { name: 'A', source_id: 'A', collection_data: { v: 1 } },
      { name: 'B', source_id: 'B', collection_data: { v: 1 } },
    ]);
    const [a, b] = first.results.map((r) => r.id);
    const second = await upsert([
      { name: 'A', source_id: 'A', collection_data: { v: 1 } },
      { name: 'B', source_id: 'B', collection_data: { v: 2 } },
      { name: 'B', source_id: 'B', collection_data: { v: 3 } },
    ]);
    expect(statuses(second)).toEqual(['skipped', 'updated', 'updated']);
    // A marker written after both chunks: once its event is seen, every earlier one is too.
    const marker = (await upsert([{ name: 'marker' }])).results[0]!.id;
    await h.waitForChanges(() => eventsOf(marker).length === 1);

    const summary = (e: RecordChangedEvent) => [e.kind, e.version, 'record' in e ? e.record.collection_data : undefined];
    expect(eventsOf(a!).map(summary)).toEqual([['upserted', 1, { v: 1 }]]);
    expect(eventsOf(b!).map(summary)).toEqual([
      ['upserted', 1, { v: 1 }],
      ['upserted', 2, { v: 3 }],
    ]);
    const last = eventsOf(b!).at(-1)!;
    expect(last.kind === 'upserted' && last.record).toEqual(await read(b!));
    const created = eventsOf(a!)[0]!;
    expect(created.kind === 'upserted' && created.record).toEqual(await read(a!));
  });

  it('announces nothing and writes nothing when one item is invalid', async () => {
    const before = await countRecords();
    const res = await api.post(
      RECORDS_BULK_UPSERT.path,
      chunk([{ name: 'Good', source_id: 'G' }, { name: '' }, { name: 'Also good', collection_data: { a: 1 } }]),
    );
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc: ['body', 'records', '1', 'name'], type: 'string_too_short' })]));
    expect(res.body.detail.every((i: { loc: string[] }) => i.loc[2] === '1')).toBe(true);
    expect(await countRecords()).toBe(before);
    const marker = (await upsert([{ name: 'marker' }])).results[0]!.id;
    await h.waitForChanges(() => eventsOf(marker).length === 1);
    expect(h.changes.filter((e) => e.tenant_id === tenant && e.record_id !== marker)).toEqual([]);
  });
});

describe('pending_indexing', () => {
  it('counts the backlog only up to backlog_count_limit when the caller gives one', async () => {
    await upsert([{ name: 'a' }, { name: 'b' }, { name: 'c' }]);
    expect((await upsert([{ name: 'd' }], { backlog_count_limit: 2 })).pending_indexing).toBe(2);
    expect((await upsert([{ name: 'e' }])).pending_indexing).toBe(5);
  });

  it("counts the tenant's records waiting for indexing after the write", async () => {
    const first = await upsert([{ name: 'A', source_id: 'A' }, { name: 'B', source_id: 'B' }, { name: 'C', source_id: 'C' }]);
    expect(first.pending_indexing).toBe(3);
    // Another tenant's backlog is not counted.
    await upsert([{ name: 'X' }], {}, h.as(newTenant(), ['upload']));

    const [a, b] = first.results.map((r) => r.id);
    await h.svc.bus.publish(
      [a!, b!].map((id) => ({ topic: TOPICS.recordsIndexed, key: id, payload: { tenant_id: tenant, record_id: id, version: 1, status: 'indexed' } })),
    );
    await eventually(async () => expect((await read(b!)).indexing_status).toBe('indexed'));
    await eventually(async () => expect((await read(a!)).indexing_status).toBe('indexed'));

    const skipped = await upsert([{ name: 'A', source_id: 'A' }]);
    expect(skipped).toMatchObject({ results: [{ status: 'skipped' }], pending_indexing: 1 });
    const updated = await upsert([{ name: 'A changed', source_id: 'A' }, { name: 'D', source_id: 'D' }]);
    expect(updated.pending_indexing).toBe(3);
  });
});

describe('validation', () => {
  it('refuses 1,001 records with the list limit and writes nothing', async () => {
    const records = Array.from({ length: BULK_UPSERT_MAX_ITEMS + 1 }, (_, i) => ({ name: `Bolt ${i}` }));
    const res = await api.post(RECORDS_BULK_UPSERT.path, chunk(records));
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'records'], type: 'too_long', ctx: { max_length: 1000 } })]);
    expect(await countRecords()).toBe(0);
  });

  it.each<[string, unknown, string[], string]>([
    ['no records', chunk([]), ['body', 'records'], 'too_short'],
    ['an unknown source_type', chunk([{ name: 'A' }], { source_type: 'ftp' }), ['body', 'source_type'], 'enum'],
    ['an unknown field in an item', chunk([{ name: 'A', colour: 'red' } as Item]), ['body', 'records', '0', 'colour'], 'extra_forbidden'],
    ['a blank name', chunk([{ name: 'A' }, { name: '   ' }]), ['body', 'records', '1', 'name'], 'value_error'],
    ['a NUL character in collection_data', chunk([{ name: 'A', collection_data: { a: 'x\u0000y' } }]), ['body', 'records', '0', 'collection_data', 'a'], 'value_error'],
    ['collection_data that is not an object', chunk([{ name: 'A', collection_data: [1] as unknown as Record<string, unknown> }]), ['body', 'records', '0', 'collection_data'], 'dict_type'],
    ['an invalid collection name', chunk([{ name: 'A' }], { collection: 'a/b' }), ['body', 'collection'], 'string_pattern_mismatch'],
    ['an empty source_id', chunk([{ name: 'A', source_id: '' }]), ['body', 'records', '0', 'source_id'], 'string_too_short'],
  ])('answers 422 for %s', async (_label, body, loc, type) => {
    const res = await api.post(RECORDS_BULK_UPSERT.path, body);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc, type })]));
    expect(await countRecords()).toBe(0);
  });

  it('answers 422 json_invalid for malformed JSON and 413 above its own limit', async () => {
    const malformed = await request(h.svc.instance.app)
      .post(RECORDS_BULK_UPSERT.path)
      .set({ ...h.svc.as(tenant, ['upload'], undefined, 'ingestion'), 'content-type': 'application/json' })
      .send('{"records": [');
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail[0]).toMatchObject({ loc: ['body'], type: 'json_invalid' });

    const huge = await request(h.svc.instance.app)
      .post(RECORDS_BULK_UPSERT.path)
      .set({ ...h.svc.as(tenant, ['upload'], undefined, 'ingestion'), 'content-type': 'application/json' })
      .send(`{"pad": "${'x'.repeat(65 * 1024 * 1024)}"}`);
    expect(huge.status).toBe(413);
    expect(huge.body.detail).toMatch(/exceeds the limit/);
  });
});

describe('identity and scopes', () => {
  it.each([['upload'], ['records'], ['admin']] as const)('lets an identity with the %s scope write', async (scope) => {
    const out = await upsert([{ name: 'A' }], {}, h.as(tenant, [scope]));
    expect(statuses(out)).toEqual(['created']);
  });

  it('answers 403 to an identity without the upload or records scope, before reading the body', async () => {
    const res = await h.as(tenant, ['search']).post(RECORDS_BULK_UPSERT.path, chunk([{ name: 'A' }]));
    expect(res.status).toBe(403);
    expect(res.body.detail).toMatch(/upload.*records/);
    expect(await countRecords()).toBe(0);
  });

  it('answers 401 without the internal identity', async () => {
    const res = await request(h.svc.instance.app).post(RECORDS_BULK_UPSERT.path).send(chunk([{ name: 'A' }]));
    expect(res.status).toBe(401);
  });
});

describe('concurrency', () => {
  it('never creates two live records for one source_id when chunks race', async () => {
    const records = Array.from({ length: 200 }, (_, i) => ({ name: `Bolt ${i}`, source_id: `R-${i}` }));
    const outs = await Promise.all([upsert(records), upsert(records), upsert(records.slice().reverse())]);
    expect(await countRecords()).toBe(200);
    const created = outs.flatMap((o) => o.results.filter((r) => r.status === 'created'));
    expect(created).toHaveLength(200);
    expect(outs.flatMap((o) => o.results.filter((r) => r.status === 'updated'))).toEqual([]);
  });

  it('keeps one live record per source_id, with one writer\'s content, when chunks with different content race', async () => {
    const ids = Array.from({ length: 100 }, (_, i) => `S-${i}`);
    const outs = await Promise.all(['first', 'second', 'third'].map((label) => upsert(ids.map((id) => ({ name: `${label} ${id}`, source_id: id })))));
    expect(await countRecords()).toBe(100);
    expect(outs.flatMap((o) => o.results.filter((r) => r.status === 'created'))).toHaveLength(100);
    for (const [i, id] of ids.entries()) {
      const record = await read(outs[0]!.results[i]!.id);
      expect(record.source_id).toBe(id);
      expect(['first', 'second', 'third'].map((label) => `${label} ${id}`)).toContain(record.name);
    }
  });

  it('answers an API create racing an upload of its source_id with 201 or 409, never two records or a 500', async () => {
    const ids = Array.from({ length: 30 }, (_, i) => `RACE-${i}`);
    const [, ...answers] = await Promise.all([
      upsert(ids.map((id) => ({ name: `Uploaded ${id}`, source_id: id }))),
      ...ids.map((id) => h.as(tenant).post('/records', bolt({ source_id: id, collection: 'fasteners' }))),
    ]);
    for (const res of answers) expect([201, 409]).toContain(res.status);
    expect(await countRecords()).toBe(30);
  });

  it('answers 409 when an API client creates a second live record with a source_id', async () => {
    await upsert([{ name: 'A', source_id: 'TAKEN' }]);
    const res = await h.as(tenant).post('/records', bolt({ source_id: 'TAKEN' }));
    expect(res.status).toBe(409);
    expect((await h.as(tenant).post('/records', bolt({ source_id: 'TAKEN', collection: 'elsewhere' }))).status).toBe(201);
  });
});

describe('indexing summary and requeue by id (the older pipeline routes)', () => {
  it('counts and requeues only the caller\'s records among the ids, and refuses ids that are not UUIDs', async () => {
    const out = await upsert([{ name: 'One', source_id: '1' }, { name: 'Two', source_id: '2' }]);
    const ids = out.results.map((r) => r.id);
    const summary = await api.post(RECORDS_INDEXING_SUMMARY.path, { ids });
    expect(summary.body).toEqual({ total: 2, pending: 2, processing: 0, indexed: 0, failed: 0 });

    const other = h.as(newTenant(), ['upload']);
    expect((await other.post(RECORDS_INDEXING_SUMMARY.path, { ids })).body).toMatchObject({ total: 0 });
    expect((await other.post(RECORDS_REQUEUE.path, { ids })).body).toEqual({ requeued: 0 });

    expect((await api.post(RECORDS_REQUEUE.path, { ids })).body).toEqual({ requeued: 2 });
    expect((await read(ids[0]!)).version).toBe(2);
    // Each requeued record is announced again at its new version, so search indexes it through the usual path.
    await eventually(async () => {
      for (const id of ids) expect(eventsOf(id).map((e) => (e as { version: number }).version)).toEqual([1, 2]);
    });
    expect((await api.post(RECORDS_REQUEUE.path, { ids: ['x'] })).status).toBe(422);
  });
});

describe('migration of stored records', () => {
  it('gives records stored before the content hash existed their hash, so dedup finds them', async () => {
    const db = await createTestDatabase();
    try {
      await migrate(db.database, 'records', migrations.filter((m) => m.version === 1));
      const data = { b: 2, a: [1, { y: 'z' }] };
      await sql`
        insert into records.records (id, tenant_id, name, description_llm, collection, record_type, collection_data, source_type, name_tsv)
        values ('00000000-0000-4000-8000-000000000001', 't', 'Old', 'd', 'c', 'r', ${JSON.stringify(data)}::jsonb, 'api', ''::tsvector)
      `.execute(db.database.db);
      await migrate(db.database, 'records', migrations);
      const rows = await sql<{ content_hash: string }>`select content_hash from records.records`.execute(db.database.db);
      expect(rows.rows).toEqual([{ content_hash: contentHash({ name: 'Old', collection_data: data }) }]);
    } finally {
      await db.drop();
    }
  });

  it('keeps the indexing status of records stored before it moved to a table of its own', async () => {
    const db = await createTestDatabase();
    try {
      await migrate(db.database, 'records', migrations.filter((m) => m.version < 3));
      await sql`
        insert into records.records (id, tenant_id, name, description_llm, collection, record_type, source_type, name_tsv,
          content_hash, indexing_status, version)
        values
          ('00000000-0000-4000-8000-000000000001', 't', 'Indexed', 'd', 'c', 'r', 'api', ''::tsvector, 'h1', 'indexed', 3),
          ('00000000-0000-4000-8000-000000000002', 't', 'Waiting', 'd', 'c', 'r', 'api', ''::tsvector, 'h2', 'pending', 1)
      `.execute(db.database.db);
      await migrate(db.database, 'records', migrations);

      const store: Db = db.database.db;
      expect(await findRecord(store, 't', '00000000-0000-4000-8000-000000000001')).toMatchObject({ indexing_status: 'indexed', version: 3 });
      expect(await findRecord(store, 't', '00000000-0000-4000-8000-000000000002')).toMatchObject({ indexing_status: 'pending', version: 1 });
      expect(await countIndexingBacklog(store, 't')).toBe(1);
    } finally {
      await db.drop();
    }
  });
});
