import { randomUUID } from 'node:crypto';
import { bearer, useTrove } from './support/system';

jest.setTimeout(90_000);

const trove = useTrove();
const api = trove.api;
let keyA: string;
let keyB: string;

beforeAll(async () => {
  keyA = await trove.keyFor(randomUUID(), ['admin']);
  keyB = await trove.keyFor(randomUUID(), ['records']);
});

const bolt = {
  name: 'M8 hex bolt',
  collection: 'fasteners',
  record_type: 'product',
  collection_data: { material: 'steel', standard: 'DIN 933', price: 0.12, in_stock: true },
};

describe('record lifecycle through the gateway', () => {
  let id: string;

  it('creates a record and answers the specified fields', async () => {
    const res = await api('POST', '/api/v1/records', { headers: bearer(keyA), body: bolt });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(
      ['collection', 'collection_data', 'created_at', 'id', 'indexing_status', 'name', 'record_type', 'visibility'].sort(),
    );
    expect(res.body).toMatchObject({ ...bolt, visibility: 'private' });
    id = res.body.id;
  });

  it('reads the full record with its generated description', async () => {
    const res = await api('GET', `/api/v1/records/${id}`, { headers: bearer(keyA) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id,
      ...bolt,
      status: 'active',
      visibility: 'private',
      source_type: 'api',
      generation: 1,
    });
    expect(res.body.description_llm).toContain('M8 hex bolt');
    expect(res.body.description_llm.length).toBeLessThanOrEqual(320);
    for (const f of ['tenant_id', 'description', 'source_name', 'source_id', 'source_url', 'created_at', 'updated_at', 'indexing_status']) {
      expect(res.body).toHaveProperty(f);
    }
  });

  it('merges collection_data on PATCH and rebuilds the description', async () => {
    const res = await api('PATCH', `/api/v1/records/${id}`, { headers: bearer(keyA), body: { collection_data: { price: 0.15, finish: 'zinc' } } });
    expect(res.status).toBe(200);
    expect(res.body.collection_data).toEqual({ material: 'steel', standard: 'DIN 933', price: 0.15, in_stock: true, finish: 'zinc' });
    const read = await api('GET', `/api/v1/records/${id}`, { headers: bearer(keyA) });
    expect(read.body.collection_data.finish).toBe('zinc');
  });

  it('pages through a list with an opaque cursor without gaps or repeats', async () => {
    for (let i = 0; i < 5; i++) {
      const r = await api('POST', '/api/v1/records', { headers: bearer(keyA), body: { ...bolt, name: `washer ${i}`, record_type: 'washer' } });
      expect(r.status).toBe(201);
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 5; page++) {
      const q = `/api/v1/records?collection=fasteners&record_type=washer&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const res = await api('GET', q, { headers: bearer(keyA) });
      expect(res.status).toBe(200);
      seen.push(...res.body.items.map((it: { name: string }) => it.name));
      if (!res.body.has_more) break;
      cursor = res.body.cursor;
    }
    expect(seen.sort()).toEqual(['washer 0', 'washer 1', 'washer 2', 'washer 3', 'washer 4']);
    const byName = await api('GET', '/api/v1/records?q=hex', { headers: bearer(keyA) });
    expect(byName.body.items.map((it: { id: string }) => it.id)).toEqual([id]);
  });

  it('changes visibility singly and in bulk, and sets a collection default for future records', async () => {
    const one = await api('PATCH', `/api/v1/records/${id}/visibility`, { headers: bearer(keyA), body: { visibility: 'public' } });
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ id, visibility: 'public' });
    const def = await api('PATCH', '/api/v1/collections/catalogue/default-visibility', {
      headers: bearer(keyA),
      body: { default_visibility: 'public' },
    });
    expect(def.body).toEqual({ collection: 'catalogue', default_visibility: 'public' });
    const later = await api('POST', '/api/v1/records', { headers: bearer(keyA), body: { ...bolt, collection: 'catalogue' } });
    expect(later.body.visibility).toBe('public');
    const bulk = await api('POST', '/api/v1/records/bulk-visibility', { headers: bearer(keyA), body: { record_ids: [id, later.body.id], visibility: 'private' } });
    expect(bulk.body).toEqual({ updated: 2 });
    const tooMany = await api('POST', '/api/v1/records/bulk-visibility', {
      headers: bearer(keyA),
      body: { record_ids: Array.from({ length: 1001 }, () => randomUUID()), visibility: 'public' },
    });
    expect(tooMany.status).toBe(422);
  });

  it('archives on DELETE: still readable by id, gone from the default list', async () => {
    expect((await api('DELETE', `/api/v1/records/${id}`, { headers: bearer(keyA) })).status).toBe(204);
    const read = await api('GET', `/api/v1/records/${id}`, { headers: bearer(keyA) });
    expect(read.body.status).toBe('archived');
    const active = await api('GET', '/api/v1/records?collection=fasteners&record_type=product', { headers: bearer(keyA) });
    expect(active.body.items).toEqual([]);
    const archived = await api('GET', '/api/v1/records?collection=fasteners&status=archived', { headers: bearer(keyA) });
    expect(archived.body.items.map((it: { id: string }) => it.id)).toEqual([id]);
  });

  it('updates and deletes in bulk', async () => {
    const list = await api('GET', '/api/v1/records?record_type=washer', { headers: bearer(keyA) });
    const ids = list.body.items.map((it: { id: string }) => it.id);
    const upd = await api('PATCH', '/api/v1/records/bulk', { headers: bearer(keyA), body: { record_ids: ids, update: { collection_data: { batch: 7 } } } });
    expect(upd.body).toEqual({ updated: 5 });
    const one = await api('GET', `/api/v1/records/${ids[0]}`, { headers: bearer(keyA) });
    expect(one.body.collection_data).toMatchObject({ material: 'steel', batch: 7 });
    const del = await api('POST', '/api/v1/records/bulk-delete', { headers: bearer(keyA), body: { record_ids: ids.slice(0, 2) } });
    expect(del.body).toEqual({ deleted: 2 });
    expect((await api('POST', '/api/v1/records/retry-reset', { headers: bearer(keyA) })).body).toEqual({ reset: 0 });
  });
});

describe('tenant isolation', () => {
  it("answers 404 for another tenant's record and shows nothing of it", async () => {
    const mine = await api('POST', '/api/v1/records', { headers: bearer(keyA), body: { ...bolt, name: 'secret part' } });
    const rid = mine.body.id;
    expect((await api('GET', `/api/v1/records/${rid}`, { headers: bearer(keyB) })).status).toBe(404);
    expect((await api('PATCH', `/api/v1/records/${rid}`, { headers: bearer(keyB), body: { name: 'x' } })).status).toBe(404);
    expect((await api('DELETE', `/api/v1/records/${rid}`, { headers: bearer(keyB) })).status).toBe(404);
    expect((await api('PATCH', `/api/v1/records/${rid}/visibility`, { headers: bearer(keyB), body: { visibility: 'public' } })).status).toBe(404);
    const bulk = await api('POST', '/api/v1/records/bulk-delete', { headers: bearer(keyB), body: { record_ids: [rid] } });
    expect(bulk.body).toEqual({ deleted: 0 });
    const list = await api('GET', '/api/v1/records?q=secret', { headers: bearer(keyB) });
    expect(list.body.items).toEqual([]);
    const still = await api('GET', `/api/v1/records/${rid}`, { headers: bearer(keyA) });
    expect(still.body).toMatchObject({ name: 'secret part', status: 'active' });
  });
});

describe('collection listing through the gateway', () => {
  it("answers GET /api/v1/collections with the key's tenant's collections, record types and counts", async () => {
    const key = await trove.keyFor(randomUUID(), ['records']);
    for (const body of [bolt, { ...bolt, name: 'M8 hex nut' }, { ...bolt, name: 'Torque guide', record_type: 'manual' }, { ...bolt, name: 'Drill', collection: 'tools' }]) {
      expect((await api('POST', '/api/v1/records', { headers: bearer(key), body })).status).toBe(201);
    }
    const res = await api('GET', '/api/v1/collections', { headers: bearer(key) });
    expect(res.status).toBe(200);
    expect(res.body.collections.map((c: Record<string, unknown>) => [c.name, c.record_types, c.record_type_counts, c.total_records])).toEqual([
      ['fasteners', ['product', 'manual'], { product: 2, manual: 1 }, 3],
      ['tools', ['product'], { product: 1 }, 1],
    ]);
    const other = await api('GET', '/api/v1/collections', { headers: bearer(keyB) });
    expect(other.status).toBe(200);
    expect(other.body.collections.map((c: { name: string }) => c.name)).not.toContain('tools');
    const searchOnly = await trove.keyFor({ adminKey: keyA }, ['search']);
    expect((await api('GET', '/api/v1/collections', { headers: bearer(searchOnly) })).status).toBe(403);
    expect((await api('GET', '/api/v1/collections')).status).toBe(401);
  });
});

describe('bad input', () => {
  it('answers malformed JSON with 422 json_invalid', async () => {
    const res = await api('POST', '/api/v1/records', { headers: bearer(keyA), raw: '{"name": ' });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body'], type: 'json_invalid' });
  });

  it('answers wrong types, missing fields and unknown enum values with 422 naming each field', async () => {
    const res = await api('POST', '/api/v1/records', {
      headers: bearer(keyA),
      body: { name: 5, record_type: 'x', collection: 'bad name!', visibility: 'secret' },
    });
    expect(res.status).toBe(422);
    const locs = res.body.detail.map((d: { loc: string[] }) => d.loc.join('.'));
    expect(locs).toEqual(expect.arrayContaining(['body.name', 'body.collection', 'body.visibility']));
  });

  it('answers out-of-range limits, bad cursors and non-UUID ids with 422', async () => {
    for (const q of ['limit=0', 'limit=101', 'limit=abc', 'status=deleted', 'cursor=%%%']) {
      const res = await api('GET', `/api/v1/records?${q}`, { headers: bearer(keyA) });
      expect([q, res.status]).toEqual([q, 422]);
    }
    const res = await api('GET', '/api/v1/records/12345', { headers: bearer(keyA) });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['path', 'id']);
  });

  it('answers an oversize body with 413 and writes nothing', async () => {
    const huge = { ...bolt, name: 'huge', collection_data: { blob: 'x'.repeat(3 * 1024 * 1024) } };
    const res = await api('POST', '/api/v1/records', { headers: bearer(keyA), body: huge });
    expect(res.status).toBe(413);
    expect(typeof res.body.detail).toBe('string');
    const list = await api('GET', '/api/v1/records?q=huge', { headers: bearer(keyA) });
    expect(list.body.items).toEqual([]);
  });

  it('refuses a records call from a key without the records scope', async () => {
    const searchOnly = await trove.keyFor({ adminKey: keyA }, ['search']);
    expect((await api('GET', '/api/v1/records', { headers: bearer(searchOnly) })).status).toBe(403);
  });
});
