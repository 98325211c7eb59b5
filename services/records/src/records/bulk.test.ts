import { randomUUID } from 'node:crypto';
import { bolt, newTenant, startRecords, type Client, type Harness } from '../../test/helpers';

let h: Harness;
let api: Client;

beforeAll(async () => {
  h = await startRecords();
  api = h.as(newTenant());
});
afterAll(() => h.stop());

async function createMany(n: number, overrides: Record<string, unknown> = {}): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await api.post('/records', bolt({ name: `Bolt ${i}`, ...overrides }));
    expect(res.status).toBe(201);
    ids.push(res.body.id);
  }
  return ids;
}

const read = async (id: string) => (await api.get(`/records/${id}`)).body;

describe('PATCH /records/bulk', () => {
  it('applies the update to every listed record with merge semantics and counts them', async () => {
    const ids = await createMany(3);
    const res = await api.patch('/records/bulk', { record_ids: ids, update: { collection_data: { price: 1, standard: null }, status: 'draft' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ updated: 3 });
    for (const id of ids) {
      expect(await read(id)).toMatchObject({ collection_data: { material: 'steel', price: 1 }, status: 'draft', version: 2, indexing_status: 'pending' });
    }
  });

  it('keeps nested, quoted and non-Latin collection_data exactly', async () => {
    const data = { dims: { l: 20, tags: ['a', "it's"] }, note: 'say "hi" \\ 🙂', 名前: 'ボルト', empty: {}, zero: 0, no: false };
    const [id] = await createMany(1, { collection_data: data, description: "O'Brien's" });
    await api.patch('/records/bulk', { record_ids: [id], update: { name: "Bolt 'quoted'" } });
    const record = await read(id!);
    expect(record).toMatchObject({ name: "Bolt 'quoted'", description: "O'Brien's", version: 2 });
    expect(record.collection_data).toEqual(data);
  });

  it('does not count unknown, archived or repeated ids', async () => {
    const [live, gone] = await createMany(2);
    await api.delete(`/records/${gone}`);
    const res = await api.patch('/records/bulk', { record_ids: [live, live, gone, randomUUID()], update: { name: 'Renamed' } });
    expect(res.body).toEqual({ updated: 1 });
    expect(await read(gone!)).toMatchObject({ name: 'Bolt 1', status: 'archived' });
  });

  it('counts records the update leaves as they are without giving them a new version', async () => {
    const [id] = await createMany(1);
    const res = await api.patch('/records/bulk', { record_ids: [id], update: { name: 'Bolt 0' } });
    expect(res.body).toEqual({ updated: 1 });
    expect((await read(id!)).version).toBe(1);
  });

  it.each([
    ['no record_ids', { update: { name: 'x' } }, ['body', 'record_ids'], 'missing'],
    ['an empty record_ids', { record_ids: [], update: { name: 'x' } }, ['body', 'record_ids'], 'too_short'],
    ['1001 record_ids', { record_ids: Array.from({ length: 1001 }, () => randomUUID()), update: { name: 'x' } }, ['body', 'record_ids'], 'too_long'],
    ['an id that is not a UUID', { record_ids: ['nope'], update: { name: 'x' } }, ['body', 'record_ids', '0'], 'uuid_parsing'],
    ['no update', { record_ids: [randomUUID()] }, ['body', 'update'], 'missing'],
    ['an unknown update field', { record_ids: [randomUUID()], update: { collection: 'x' } }, ['body', 'update', 'collection'], 'extra_forbidden'],
    ['an invalid update value', { record_ids: [randomUUID()], update: { name: '' } }, ['body', 'update', 'name'], 'string_too_short'],
  ])('answers 422 for %s', async (_label, body, loc, type) => {
    const res = await api.patch('/records/bulk', body);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc, type })]));
  });

  it('writes nothing when one id in the list is malformed', async () => {
    const [id] = await createMany(1);
    const res = await api.patch('/records/bulk', { record_ids: [id, 'nope'], update: { name: 'Changed' } });
    expect(res.status).toBe(422);
    expect((await read(id!)).name).toBe('Bolt 0');
  });

  it('accepts 1000 ids', async () => {
    const [id] = await createMany(1);
    const record_ids = [id, ...Array.from({ length: 999 }, () => randomUUID())];
    const res = await api.patch('/records/bulk', { record_ids, update: { collection_data: { lot: 7 } } });
    expect(res.body).toEqual({ updated: 1 });
  });
});

describe('POST /records/bulk-delete', () => {
  it('archives the listed records and counts only those not archived before', async () => {
    const ids = await createMany(3);
    await api.delete(`/records/${ids[0]}`);
    const res = await api.post('/records/bulk-delete', { record_ids: [...ids, randomUUID()] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted: 2 });
    for (const id of ids) expect((await read(id)).status).toBe('archived');
    expect((await api.post('/records/bulk-delete', { record_ids: ids })).body).toEqual({ deleted: 0 });
  });

  it.each([
    ['an empty list', { record_ids: [] }],
    ['1001 ids', { record_ids: Array.from({ length: 1001 }, () => randomUUID()) }],
    ['a malformed id', { record_ids: ['x'] }],
    ['an unknown field', { record_ids: [randomUUID()], hard: true }],
    ['record_ids that is not a list', { record_ids: randomUUID() }],
  ])('answers 422 for %s', async (_label, body) => {
    expect((await api.post('/records/bulk-delete', body)).status).toBe(422);
  });
});

describe('PATCH /records/{id}/visibility', () => {
  it('sets the visibility and answers id and visibility', async () => {
    const [id] = await createMany(1);
    const res = await api.patch(`/records/${id}/visibility`, { visibility: 'public' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id, visibility: 'public' });
    expect(await read(id!)).toMatchObject({ visibility: 'public', version: 2, indexing_status: 'pending' });
  });

  it('leaves the version alone when the visibility is already the one asked for', async () => {
    const [id] = await createMany(1);
    expect((await api.patch(`/records/${id}/visibility`, { visibility: 'private' })).body).toEqual({ id, visibility: 'private' });
    expect((await read(id!)).version).toBe(1);
  });

  it('answers 404 for an unknown record, 409 for an archived one and 422 for bad input', async () => {
    expect((await api.patch(`/records/${randomUUID()}/visibility`, { visibility: 'public' })).status).toBe(404);
    const [id] = await createMany(1);
    await api.delete(`/records/${id}`);
    expect((await api.patch(`/records/${id}/visibility`, { visibility: 'public' })).status).toBe(409);
    expect((await api.patch(`/records/x/visibility`, { visibility: 'public' })).status).toBe(422);
    expect((await api.patch(`/records/${id}/visibility`, { visibility: 'everyone' })).status).toBe(422);
    expect((await api.patch(`/records/${id}/visibility`, {})).status).toBe(422);
  });
});

describe('POST /records/bulk-visibility', () => {
  it('sets the visibility of the listed live records and counts them', async () => {
    const ids = await createMany(3);
    await api.delete(`/records/${ids[2]}`);
    const res = await api.post('/records/bulk-visibility', { record_ids: [...ids, randomUUID()], visibility: 'public' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ updated: 2 });
    expect((await read(ids[0]!)).visibility).toBe('public');
    expect((await read(ids[1]!)).visibility).toBe('public');
    expect((await read(ids[2]!)).visibility).toBe('private');
  });

  it('accepts 1,000 ids and refuses 1,001', async () => {
    const ids = Array.from({ length: 1000 }, () => randomUUID());
    expect((await api.post('/records/bulk-visibility', { record_ids: ids, visibility: 'public' })).body).toEqual({ updated: 0 });
    const res = await api.post('/records/bulk-visibility', { record_ids: [...ids, randomUUID()], visibility: 'public' });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'record_ids'], type: 'too_long', ctx: { max_length: 1000 } });
  });

  it('answers 422 for a missing or unknown visibility', async () => {
    expect((await api.post('/records/bulk-visibility', { record_ids: [randomUUID()] })).status).toBe(422);
    expect((await api.post('/records/bulk-visibility', { record_ids: [randomUUID()], visibility: 'x' })).status).toBe(422);
  });
});

describe('PATCH /collections/{collection}/default-visibility', () => {
  it('makes future records of the collection take the default, and leaves existing ones as they are', async () => {
    const [existing] = await createMany(1, { collection: 'catalogue' });
    const res = await api.patch('/collections/catalogue/default-visibility', { default_visibility: 'public' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ collection: 'catalogue', default_visibility: 'public' });
    expect((await read(existing!)).visibility).toBe('private');

    const created = await api.post('/records', bolt({ collection: 'catalogue' }));
    expect(created.body.visibility).toBe('public');
    const explicit = await api.post('/records', bolt({ collection: 'catalogue', visibility: 'private' }));
    expect(explicit.body.visibility).toBe('private');
    const elsewhere = await api.post('/records', bolt({ collection: 'other' }));
    expect(elsewhere.body.visibility).toBe('private');
  });

  it('sets a default for a collection that has no records yet', async () => {
    expect((await api.patch('/collections/brand-new/default-visibility', { default_visibility: 'public' })).status).toBe(200);
    expect((await api.post('/records', bolt({ collection: 'brand-new' }))).body.visibility).toBe('public');
    await api.patch('/collections/brand-new/default-visibility', { default_visibility: 'private' });
    expect((await api.post('/records', bolt({ collection: 'brand-new' }))).body.visibility).toBe('private');
  });

  it('answers 400 for a collection name with broken percent-encoding', async () => {
    expect((await api.patch('/collections/%ZZ/default-visibility', { default_visibility: 'public' })).status).toBe(400);
  });

  it.each([
    ['a malformed collection name', '/collections/bad%20name/default-visibility', { default_visibility: 'public' }, ['path', 'collection']],
    ['a collection name over 50 characters', `/collections/${'c'.repeat(51)}/default-visibility`, { default_visibility: 'public' }, ['path', 'collection']],
    ['an unknown visibility', '/collections/ok/default-visibility', { default_visibility: 'hidden' }, ['body', 'default_visibility']],
    ['a missing default_visibility', '/collections/ok/default-visibility', {}, ['body', 'default_visibility']],
    ['visibility instead of default_visibility', '/collections/ok/default-visibility', { visibility: 'public' }, ['body', 'visibility']],
  ])('answers 422 for %s', async (_label, path, body, loc) => {
    const res = await api.patch(path, body);
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: string[] }) => d.loc)).toContainEqual(loc);
  });
});
