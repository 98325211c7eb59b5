import { newTenant, startRecords, type Client, type Harness } from '../../test/helpers';

let h: Harness;
let api: Client;
let other: Client;

beforeAll(async () => {
  h = await startRecords();
  api = h.as(newTenant());
  other = h.as(newTenant());
  const seed: Array<[Client, Record<string, unknown>]> = [
    [api, { name: 'M8 hex bolt', collection: 'fasteners', record_type: 'product' }],
    [api, { name: 'M8 hex nut', collection: 'fasteners', record_type: 'product' }],
    [api, { name: 'Flat washer M8', collection: 'fasteners', record_type: 'accessory' }],
    [api, { name: 'Torque guide', collection: 'fasteners', record_type: 'manual' }],
    [api, { name: 'Cordless drill', collection: 'tools', record_type: 'product' }],
    [api, { name: 'Hex key set', collection: 'tools', record_type: 'product', status: 'draft' }],
    [other, { name: 'Secret bolt', collection: 'fasteners', record_type: 'product' }],
    [other, { name: 'Secret alloy', collection: 'metals', record_type: 'material' }],
  ];
  for (const [client, body] of seed) expect((await client.post('/records', body)).status).toBe(201);
  const archived = await api.post('/records', { name: 'Old hex bolt', collection: 'fasteners', record_type: 'product' });
  await api.delete(`/records/${archived.body.id}`);
  const gone = await api.post('/records', { name: 'Old catalogue', collection: 'archive', record_type: 'product' });
  await api.delete(`/records/${gone.body.id}`);
});
afterAll(() => h.stop());

describe('GET /collections', () => {
  it("lists the tenant's collections by name with record types (most records first) and counts of active records", async () => {
    const res = await api.get('/collections');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      collections: [
        {
          name: 'fasteners',
          record_types: ['product', 'accessory', 'manual'],
          record_type_counts: { product: 2, accessory: 1, manual: 1 },
          total_records: 4,
          indexed: 0,
          pending: 4,
          processing: 0,
          failed: 0,
        },
        { name: 'tools', record_types: ['product'], record_type_counts: { product: 1 }, total_records: 1, indexed: 0, pending: 1, processing: 0, failed: 0 },
      ],
    });
  });

  it('shows each tenant only its own collections', async () => {
    const res = await other.get('/collections');
    expect(res.body.collections.map((c: { name: string; total_records: number }) => [c.name, c.total_records])).toEqual([
      ['fasteners', 1],
      ['metals', 1],
    ]);
    expect((await h.as(newTenant()).get('/collections')).body).toEqual({ collections: [] });
  });

  it('follows archiving at once; a tie of record types goes by name', async () => {
    const created = await api.post('/records', { name: 'Spring washer', collection: 'fasteners', record_type: 'accessory' });
    expect((await api.get('/collections')).body.collections[0]).toMatchObject({ record_types: ['accessory', 'product', 'manual'], record_type_counts: { accessory: 2 }, total_records: 5 });
    await api.delete(`/records/${created.body.id}`);
    expect((await api.get('/collections')).body.collections[0]).toMatchObject({ record_type_counts: { accessory: 1 }, total_records: 4 });
  });

  it('needs the records scope', async () => {
    expect((await h.as(newTenant(), ['search']).get('/collections')).status).toBe(403);
  });
});
