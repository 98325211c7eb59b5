import { randomUUID } from 'node:crypto';
import { bearer, useTrove } from './support/system';

jest.setTimeout(90_000);

const trove = useTrove();
const api = trove.api;
let admin: string;
let recordsOnly: string;
const ids: string[] = [];

beforeAll(async () => {
  const tenant = randomUUID();
  admin = await trove.keyFor(tenant, ['admin']);
  recordsOnly = await trove.keyFor(tenant, ['records', 'upload', 'search']);
  const items = [
    { name: 'M8 hex bolt', collection_data: { material: 'steel', size: { d: 8 }, tags: ['zinc'] } },
    { name: 'Washer, "flat"', collection_data: { material: 'brass', in_stock: true } },
  ];
  for (const item of items) {
    const res = await api('POST', '/api/v1/records', { headers: bearer(admin), body: { ...item, collection: 'fasteners', record_type: 'product' } });
    expect(res.status).toBe(201);
    ids.push(res.body.id);
  }
});

async function exportOf(format: 'csv' | 'json') {
  const start = await api('POST', `/api/v1/export?collection=fasteners&format=${format}`, { headers: bearer(admin) });
  expect(start.status).toBe(202);
  expect(start.body).toEqual({ export_id: expect.any(String), status: 'processing' });
  const id = start.body.export_id as string;
  for (let i = 0; ; i++) {
    const status = await api('GET', `/api/v1/export/${id}/status`, { headers: bearer(admin) });
    expect(status.status).toBe(200);
    if (status.body.status === 'completed') {
      expect(status.body).toEqual({ export_id: id, status: 'completed', progress: 2, total: 2 });
      break;
    }
    expect(status.body.status).toBe('processing');
    if (i > 100) throw new Error('the export did not complete in 10 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  return api('GET', `/api/v1/export/${id}/download`, { headers: bearer(admin) });
}

describe('exports through the gateway', () => {
  it('exports a collection as CSV with the flattened collection_data columns', async () => {
    const res = await exportOf('csv');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="fasteners-[0-9a-f-]{36}\.csv"$/);
    const [header, ...rows] = res.text.trimEnd().split('\n');
    expect(header).toMatch(/^id,name,collection,record_type,.*,collection_data\.in_stock,collection_data\.material,collection_data\.size\.d,collection_data\.tags$/);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(new RegExp(`^${ids[0]},M8 hex bolt,fasteners,product,.*,,steel,8,"\\[""zinc""\\]"$`));
    expect(rows[1]).toMatch(new RegExp(`^${ids[1]},"Washer, ""flat""",fasteners,product,.*,true,brass,,$`));
  });

  it('exports a collection as one JSON array of the records', async () => {
    const res = await exportOf('json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect((res.body as { id: string }[]).map((r) => r.id)).toEqual(ids);
    expect(res.body[0]).toMatchObject({ name: 'M8 hex bolt', collection_data: { material: 'steel', size: { d: 8 }, tags: ['zinc'] } });
  });

  it('lists running exports (none once they are done)', async () => {
    const res = await api('GET', '/api/v1/export/active', { headers: bearer(admin) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });

  it('refuses a key without the admin scope with 403', async () => {
    for (const [method, path] of [
      ['POST', '/api/v1/export?collection=fasteners'],
      ['GET', '/api/v1/export/active'],
      ['GET', `/api/v1/export/${randomUUID()}/status`],
      ['GET', `/api/v1/export/${randomUUID()}/download`],
    ] as const) {
      const res = await api(method, path, { headers: bearer(recordsOnly) });
      expect([method, path, res.status]).toEqual([method, path, 403]);
    }
  });
});
