import { RECORDS_BULK_UPSERT } from '@trove/contracts';
import { bolt, newTenant, startRecords, type Client, type Harness } from '../../test/helpers';

let h: Harness;
let api: Client;

beforeAll(async () => {
  h = await startRecords();
});
afterAll(() => h.stop());
beforeEach(() => {
  api = h.as(newTenant(), ['records', 'upload']);
});

const fields = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, i]));
const longKey = 'k'.repeat(257);
const TOO_MANY = 'Value should have at most 1000 fields, counted over every nested level';

describe('collection_data field limits', () => {
  it('stores collection_data of 1,000 fields over every level, names of up to 256 characters', async () => {
    const data = { nested: fields(499), ...fields(499), ['k'.repeat(256)]: 'x' };
    const res = await api.post('/records', bolt({ collection_data: data }));
    expect(res.status).toBe(201);
    expect(Object.keys(res.body.collection_data)).toHaveLength(501);
  });

  it.each([
    ['1,001 fields at the top level', fields(1001), ['body', 'collection_data'], TOO_MANY],
    ['1,001 fields counted over nested levels', { a: { b: fields(999) } }, ['body', 'collection_data'], TOO_MANY],
    ['a field name of 257 characters', { a: [{ [longKey]: 1 }] }, ['body', 'collection_data', 'a', '0', longKey], 'Key should be at most 256 characters'],
  ])('POST /records answers 422 for %s', async (_label, data, loc, msg) => {
    const res = await api.post('/records', bolt({ collection_data: data }));
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([expect.objectContaining({ loc, msg, type: 'value_error' })]);
  });

  it('PATCH /records/{id} and PATCH /records/bulk answer 422 for 1,001 fields and change nothing', async () => {
    const created = await api.post('/records', bolt());
    expect(created.status).toBe(201);
    const one = await api.patch(`/records/${created.body.id}`, { collection_data: fields(1001) });
    expect(one.status).toBe(422);
    expect(one.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'collection_data'], msg: TOO_MANY })]);
    const bulk = await api.patch('/records/bulk', { record_ids: [created.body.id], update: { collection_data: fields(1001) } });
    expect(bulk.status).toBe(422);
    expect(JSON.stringify(bulk.body.detail)).toContain(TOO_MANY);
    expect((await api.get(`/records/${created.body.id}`)).body.collection_data).toEqual(bolt().collection_data);
  });

  it('the bulk upsert answers 422 naming the item with 100,000 fields and writes nothing of the chunk', async () => {
    const res = await api.post(RECORDS_BULK_UPSERT.path, {
      collection: 'wide',
      record_type: 'product',
      source_type: 'file_upload',
      records: [{ name: 'fine' }, { name: 'wide', collection_data: fields(100_000) }],
    });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'records', '1', 'collection_data'], msg: TOO_MANY })]);
    expect((await api.get('/records?collection=wide')).body.items).toEqual([]);
  });

  it('PATCH answers 422 when the merge with the stored collection_data would pass 1,000 fields, and changes nothing', async () => {
    const half = (prefix: string) => Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`${prefix}${i}`, i]));
    const created = await api.post('/records', bolt({ collection_data: half('a') }));
    expect(created.status).toBe(201);
    const id = created.body.id;
    const merged = 'Value should have at most 1000 fields, counted over every nested level, once merged with the stored collection_data';

    const one = await api.patch(`/records/${id}`, { collection_data: half('b') });
    expect(one.status).toBe(422);
    expect(one.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'collection_data'], msg: merged })]);
    const bulk = await api.patch('/records/bulk', { record_ids: [id], update: { collection_data: half('b') } });
    expect(bulk.status).toBe(422);
    expect(bulk.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'update', 'collection_data'], msg: merged })]);
    expect(Object.keys((await api.get(`/records/${id}`)).body.collection_data)).toHaveLength(600);

    // Replacing keys, or removing them with null, keeps within the limit.
    const removeSome = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`a${i}`, null]));
    expect((await api.patch(`/records/${id}`, { collection_data: removeSome })).status).toBe(200);
    expect((await api.patch(`/records/${id}`, { collection_data: Object.fromEntries(Array.from({ length: 700 }, (_, i) => [`c${i}`, i])) })).status).toBe(200);
    expect(Object.keys((await api.get(`/records/${id}`)).body.collection_data)).toHaveLength(1000);
  });
});
