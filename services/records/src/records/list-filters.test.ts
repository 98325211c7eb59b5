import { RECORDS_LIST } from '@trove/contracts';
import { openDatabase, type Database } from '@trove/db';
import { newTenant, startRecords, type Client, type Harness } from '../../test/helpers';

/** The conditions are SQL over jsonb, so they run on both databases records supports. */
describe.each([['PostgreSQL', false], ['embedded PGlite', true]])('GET /records?filters= (collection_data, the shared filter syntax) on %s', (_, embedded) => {
  let h: Harness;
  let api: Client;
  let database: Database | undefined;

  beforeAll(async () => {
    database = embedded ? await openDatabase({ inMemory: true }) : undefined;
    h = await startRecords({ database });
    api = h.as(newTenant());
    const seed: Array<[string, Record<string, unknown>]> = [
      ['Hex bolt', { price: 4, material: 'steel', tags: ['a', 'b'], in_stock: true, added: '2024-05-01', size: { width: 8 }, 'size.width': 10 }],
      ['Hex nut', { price: '0.5', material: 'brass', tags: 'c', in_stock: false, added: '2023-11-30', size: { width: 8 } }],
      ['Washer', { price: null, material: ['steel', 'zinc'], count: 10, list: [[1, 2]] }],
    ];
    for (const [name, collection_data] of seed) {
      expect((await api.post('/records', { name, collection: 'parts', record_type: 'product', collection_data })).status).toBe(201);
    }
    expect((await api.post('/records', { name: 'Elsewhere', collection: 'other', record_type: 'product', collection_data: { material: 'steel' } })).status).toBe(201);
  });
  afterAll(async () => {
    await h.stop();
    await database?.close();
  });

  async function names(filters: unknown, collection = 'parts'): Promise<string[]> {
    const res = await api.get(`/records?collection=${collection}&filters=${encodeURIComponent(JSON.stringify(filters))}`);
    expect(res.status).toBe(200);
    return res.body.items.map((i: { name: string }) => i.name).sort();
  }

    it('reads suffixes, comma lists and equality across spellings', async () => {
      expect(await names({ price_min: 4, price_lt: '5' })).toEqual(['Hex bolt']);
      expect(await names({ price_gt: 4 })).toEqual([]);
      expect(await names({ price_max: 1 })).toEqual(['Hex nut']);
      expect(await names({ material: 'brass, steel' })).toEqual(['Hex bolt', 'Hex nut', 'Washer']);
      expect(await names({ material_in: ['brass'] })).toEqual(['Hex nut']);
      expect(await names({ tags: 'b', in_stock: 'true' })).toEqual(['Hex bolt']);
      expect(await names({ in_stock: false })).toEqual(['Hex nut']);
      expect(await names({ count: '10' })).toEqual(['Washer']);
      expect(await names({ count: '10.0' })).toEqual([]);
      expect(await names({ added_min: '2024-01-01' })).toEqual(['Hex bolt']);
      expect(await names({ added_lt: '2024-01-01' })).toEqual(['Hex nut']);
    });

    it('reads a top-level key before a dotted path, and matches nothing for missing or null fields', async () => {
      expect(await names({ 'size.width': 10 })).toEqual(['Hex bolt']);
      expect(await names({ 'size.width': 8 })).toEqual(['Hex nut']);
      expect(await names({ 'list.0': 1 })).toEqual([]);
      expect(await names({ price: 'null' })).toEqual([]);
      expect(await names({ colour: 'red' })).toEqual([]);
    });

    it('combines with the other list parameters and stays in the tenant', async () => {
      expect(await names({ material: 'steel' }, 'other')).toEqual(['Elsewhere']);
      const res = await h.as(newTenant()).get(`/records?filters=${encodeURIComponent('{"material":"steel"}')}`);
      expect(res.body.items).toEqual([]);
    });

    it('answers filters that cannot apply with 422 naming them', async () => {
      const bad = async (text: string) => {
        const res = await api.get(`/records?filters=${encodeURIComponent(text)}`);
        expect(res.status).toBe(422);
        return res.body.detail.map((d: { loc: string[] }) => d.loc.join('.'));
      };
      expect(await bad('{"price_min":')).toEqual(['query.filters']);
      expect(await bad('[1]')).toEqual(['query.filters']);
      expect(await bad('{"price_min":"cheap","_max":3}')).toEqual(['query.filters.price_min', 'query.filters._max']);
    });

  it('takes the same parameters as a JSON body from other services, so filters of any size fit', async () => {
    const many = Array.from({ length: 99 }, (_, i) => `${'material-'.repeat(20)}${i}`);
    const res = await api.post(RECORDS_LIST.path, { collection: 'parts', limit: 2, filters: { material: [...many, 'steel'] } });
    expect(res.status).toBe(200);
    expect(res.body.items.map((i: { name: string }) => i.name)).toEqual(['Washer', 'Hex bolt']);
    expect(res.body.has_more).toBe(false);
    const get = await api.get(`/records?collection=parts&limit=2&filters=${encodeURIComponent(JSON.stringify({ material: 'steel' }))}`);
    expect(get.body).toEqual(res.body);
    const bad = await api.post(RECORDS_LIST.path, { limit: 0, filters: { price_min: 'cheap' } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((d: { loc: string[] }) => d.loc.join('.'))).toEqual(['body.limit']);
    const badFilter = await api.post(RECORDS_LIST.path, { filters: { price_min: 'cheap' } });
    expect(badFilter.body.detail.map((d: { loc: string[] }) => d.loc.join('.'))).toEqual(['body.filters.price_min']);
  });
});
