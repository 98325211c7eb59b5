import request from 'supertest';
import { BULK_UPSERT_MAX_ITEMS, RECORDS_BULK_UPSERT } from '@trove/contracts';
import { newTenant, startMcpSystem, textOf, type McpSystem } from './helpers';

/** More records than trove_collections once read (the 2,000 newest), all newer than the old collection's one record. */
const NEWER_RECORDS = 2 * BULK_UPSERT_MAX_ITEMS + 1;

describe('a tenant with more records than one MCP call reads', () => {
  let sys: McpSystem;
  const tenant = newTenant();

  beforeAll(async () => {
    sys = await startMcpSystem();
    await sys.create(tenant, { name: 'Shelf assembly guide', collection: 'old-shelf', record_type: 'manual', collection_data: { pages: 4 } });
    for (let start = 0; start < NEWER_RECORDS; start += BULK_UPSERT_MAX_ITEMS) {
      const records = Array.from({ length: Math.min(BULK_UPSERT_MAX_ITEMS, NEWER_RECORDS - start) }, (_, i) => ({ name: `Bulk part ${start + i}`, collection_data: { n: start + i } }));
      const res = await request(sys.records.instance.app)
        .post(RECORDS_BULK_UPSERT.path)
        .set(sys.records.as(tenant, ['upload'], undefined, 'ingestion'))
        .send({ collection: 'bulk', record_type: 'product', source_type: 'api', records });
      expect(res.status).toBe(200);
    }
  }, 120_000);

  afterAll(async () => {
    await sys?.stop();
  });

  it('lists a collection whose records are older than the 2,000 newest, with exact counts', async () => {
    const client = await sys.connect(tenant);
    const result = await client.callTool({ name: 'trove_collections', arguments: {} });
    expect(result.isError).toBeFalsy();
    const text = textOf(result);
    expect(text).toContain('2 collections:');
    expect(text).toContain(`| bulk | product (${NEWER_RECORDS}) | ${NEWER_RECORDS} | product | e.g. Bulk part`);
    expect(text).toContain('| old-shelf | manual (1) | 1 | manual | e.g. Shelf assembly guide |');
  });

  it('trove_list finds records by collection_data filters however far back they are', async () => {
    const client = await sys.connect(tenant);
    const result = await client.callTool({ name: 'trove_list', arguments: { collection: 'bulk', filters: { n_in: [3, 1999] } } });
    expect(result.isError).toBeFalsy();
    const text = textOf(result);
    expect(text).toContain('2 active records in "bulk":');
    expect(text).toMatch(/\| Bulk part 1999 \| product \| \d{4}-\d{2}-\d{2} \| n: 1999 \|/);
    expect(text).toContain('| Bulk part 3 |');
    expect(text).toContain('Next cursor: none (this is the last page).');
  });
});
