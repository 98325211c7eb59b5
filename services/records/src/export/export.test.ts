import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { RECORDS_BULK_UPSERT, RECORDS_REPLACE_BEGIN, RECORDS_REPLACE_FINISH } from '@trove/contracts';
import { RECORD_COLUMNS } from './format';
import type { ExportDb } from './store';
import { csvObjects } from '../../test/csv';
import { acknowledgeIndexing, bolt, eventually, newTenant, startRecords, type Client, type Harness } from '../../test/helpers';

let h: Harness;
let tenant: string;
let admin: Client;
let db: ExportDb;

/** The records of `fasteners` by status, as GET /records/{id} answers them, oldest first (the export's order). */
const created: Record<'active' | 'draft' | 'archived', Record<string, any>[]> = { active: [], draft: [], archived: [] };

async function create(client: Client, body: Record<string, unknown>): Promise<string> {
  const res = await client.post('/records', body);
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function read(id: string): Promise<Record<string, any>> {
  const res = await admin.get(`/records/${id}`);
  expect(res.status).toBe(200);
  return res.body;
}

const byPosition = (a: Record<string, any>, b: Record<string, any>) =>
  a.created_at === b.created_at ? (a.id < b.id ? -1 : 1) : a.created_at < b.created_at ? -1 : 1;

beforeAll(async () => {
  h = await startRecords();
  db = h.svc.database.db;
  tenant = newTenant();
  admin = h.as(tenant, ['admin']);
  const active = [
    bolt({ collection_data: { material: 'steel', standard: 'DIN 933', price: 0.12, size: { d: 8, thread: { pitch: 1.25 } }, tags: ['zinc', 'metric'] } }),
    bolt({ name: 'Washer, "flat"\nDIN 125', collection_data: { material: 'brass', in_stock: false, note: null } }),
    bolt({ name: 'Anchor', collection_data: {}, description: 'Zinc plated; für Beton', source_id: 'A-1', source_name: 'catalogue', source_url: 'https://example.com/a1' }),
  ];
  for (const body of active) created.active.push(await read(await create(admin, body)));
  created.draft.push(await read(await create(admin, bolt({ name: 'Draft bolt', status: 'draft', collection_data: { grade: 'A2' } }))));
  const archivedId = await create(admin, bolt({ name: 'Old bolt', collection_data: { legacy: true } }));
  expect((await admin.delete(`/records/${archivedId}`)).status).toBe(204);
  created.archived.push(await read(archivedId));
  // Neither another collection nor another tenant's records belong in the export.
  await create(admin, bolt({ collection: 'anchors', collection_data: { elsewhere: 1 } }));
  await create(h.as(newTenant(), ['admin']), bolt({ collection_data: { other_tenant: 1 } }));
  for (const list of Object.values(created)) list.sort(byPosition);
});
afterAll(() => h.stop());

async function startExport(query: string, client = admin): Promise<string> {
  const res = await client.post(`/export?${query}`);
  expect(res.status).toBe(202);
  expect(res.body).toEqual({ export_id: expect.stringMatching(/^[0-9a-f-]{36}$/), status: 'processing' });
  return res.body.export_id as string;
}

async function completed(id: string, client = admin): Promise<Record<string, unknown>> {
  let body: Record<string, unknown> = {};
  await eventually(async () => {
    const res = await client.get(`/export/${id}/status`);
    expect(res.status).toBe(200);
    body = res.body;
    expect(body.status).toBe('completed');
  });
  return body;
}

async function download(id: string, client = admin) {
  return client.get(`/export/${id}/download`).buffer(true).parse((res, done) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => (text += chunk));
    res.on('end', () => done(null, text));
  });
}

describe('POST /export and its status', () => {
  it('answers 202 processing, then the status moves to completed with progress equal to total', async () => {
    const id = await startExport('collection=fasteners&format=csv');
    const status = await completed(id);
    expect(status).toEqual({ export_id: id, status: 'completed', progress: 3, total: 3 });
  });

  it('answers 404 for a collection the tenant does not have', async () => {
    const res = await admin.post('/export?collection=nothing-here');
    expect(res.status).toBe(404);
    expect(res.body.detail).toContain('nothing-here');
  });

  it.each([
    ['', ['query', 'collection']],
    ['collection=bad%20name!', ['query', 'collection']],
    ['collection=fasteners&format=xml', ['query', 'format']],
    ['collection=fasteners&status=deleted', ['query', 'status']],
  ])('answers 422 in the validation shape for %j', async (query, loc) => {
    const res = await admin.post(`/export?${query}`);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([expect.objectContaining({ loc, msg: expect.any(String), type: expect.any(String) })]);
  });

  it('answers 422 for an id that is not a UUID', async () => {
    for (const path of ['/export/not-a-uuid/status', '/export/not-a-uuid/download']) {
      const res = await admin.get(path);
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['path', 'id'], type: 'uuid_parsing' })]);
    }
  });

  it('needs the admin scope', async () => {
    const records = h.as(tenant, ['records']);
    expect((await records.post('/export?collection=fasteners')).status).toBe(403);
    expect((await records.get('/export/active')).status).toBe(403);
  });
});

describe('GET /export/{id}/download', () => {
  it('CSV: a stable header of the record columns and the sorted flattened collection_data fields, and one row per record', async () => {
    const id = await startExport('collection=fasteners&format=csv');
    await completed(id);
    const res = await download(id);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="fasteners-${id}.csv"`);
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.body as string));
    const { header, rows } = csvObjects(res.body as string);
    const data = ['in_stock', 'material', 'note', 'price', 'size.d', 'size.thread.pitch', 'standard', 'tags'];
    expect(header).toEqual([...RECORD_COLUMNS, ...data.map((f) => `collection_data.${f}`)]);
    expect(rows.map((r) => r.id)).toEqual(created.active.map((r) => r.id));
    const [first, second, third] = rows as [Record<string, string>, Record<string, string>, Record<string, string>];
    for (const [row, record] of rows.map((r, i) => [r, created.active[i]!] as const)) {
      for (const column of RECORD_COLUMNS) expect([column, row[column]]).toEqual([column, record[column] === null ? '' : String(record[column])]);
    }
    expect(first).toMatchObject({
      'collection_data.material': 'steel',
      'collection_data.price': '0.12',
      'collection_data.size.d': '8',
      'collection_data.size.thread.pitch': '1.25',
      'collection_data.tags': '["zinc","metric"]',
      'collection_data.in_stock': '',
    });
    expect(second).toMatchObject({ name: 'Washer, "flat"\nDIN 125', 'collection_data.in_stock': 'false', 'collection_data.note': '', 'collection_data.material': 'brass' });
    expect(third).toMatchObject({ description: 'Zinc plated; für Beton', source_id: 'A-1', source_url: 'https://example.com/a1', 'collection_data.material': '' });
  });

  it('JSON: one array document equal to the records as GET /records/{id} answers them', async () => {
    const id = await startExport('collection=fasteners');
    await completed(id);
    const res = await download(id);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="fasteners-${id}.json"`);
    expect(JSON.parse(res.body as string)).toEqual(created.active);
  });

  it.each(['draft', 'archived'] as const)('exports only the records with status %s when asked', async (status) => {
    const id = await startExport(`collection=fasteners&status=${status}`);
    expect(await completed(id)).toMatchObject({ progress: 1, total: 1 });
    expect(JSON.parse((await download(id)).body as string)).toEqual(created[status]);
    const csvId = await startExport(`collection=fasteners&status=${status}&format=csv`);
    await completed(csvId);
    const { header, rows } = csvObjects((await download(csvId)).body as string);
    expect(header.slice(RECORD_COLUMNS.length)).toEqual(Object.keys(created[status][0]!.collection_data).map((k) => `collection_data.${k}`));
    expect(rows.map((r) => r.id)).toEqual(created[status].map((r) => r.id));
  });

  it('exports an empty collection as a header alone, or an empty array', async () => {
    await admin.post('/records', bolt({ collection: 'emptied' })).then(async (res) => expect((await admin.delete(`/records/${res.body.id}`)).status).toBe(204));
    const csv = await startExport('collection=emptied&format=csv');
    expect(await completed(csv)).toMatchObject({ progress: 0, total: 0 });
    expect((await download(csv)).body).toBe(`${RECORD_COLUMNS.join(',')}\n`);
    const json = await startExport('collection=emptied');
    await completed(json);
    expect(JSON.parse((await download(json)).body as string)).toEqual([]);
  });

  it("answers 404 to another tenant, for the status and the file alike", async () => {
    const id = await startExport('collection=fasteners');
    await completed(id);
    const other = h.as(newTenant(), ['admin']);
    for (const path of [`/export/${id}/status`, `/export/${id}/download`, `/export/${randomUUID()}/status`]) {
      const res = await other.get(path);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: expect.stringContaining('not found') });
    }
  });
});

describe('CSV cells a spreadsheet would run as formulas', () => {
  const data = { phone: '+1', total: '@SUM(A1)', flag: '-cmd', delta: -5, text_delta: '-5', '=cmd': '=1+2' };
  let record: Record<string, any>;

  beforeAll(async () => {
    record = await read(await create(admin, bolt({ collection: 'formulas', name: '=HYPERLINK("http://x")', collection_data: data })));
  });

  it('start with a quote in the CSV export, a numeric value unchanged', async () => {
    const id = await startExport('collection=formulas&format=csv');
    await completed(id);
    const { header, rows } = csvObjects((await download(id)).body as string);
    // The data column's prefix keeps the key's `=` from starting the header cell.
    expect(header.slice(RECORD_COLUMNS.length)).toEqual(['=cmd', 'delta', 'flag', 'phone', 'text_delta', 'total'].map((f) => `collection_data.${f}`));
    expect(rows).toEqual([
      expect.objectContaining({
        id: record.id,
        name: `'=HYPERLINK("http://x")`,
        'collection_data.phone': "'+1",
        'collection_data.total': "'@SUM(A1)",
        'collection_data.flag': "'-cmd",
        'collection_data.delta': '-5',
        'collection_data.text_delta': "'-5",
        'collection_data.=cmd': "'=1+2",
      }),
    ]);
  });

  it('stay as they are in the JSON export', async () => {
    const id = await startExport('collection=formulas');
    await completed(id);
    const [exported] = JSON.parse((await download(id)).body as string);
    expect(exported).toEqual(record);
    expect(exported).toMatchObject({ name: '=HYPERLINK("http://x")', collection_data: data });
  });
});

describe("a staged (blue-green) replace's records", () => {
  const staging = newTenant();
  let client: Client;
  beforeAll(() => {
    client = h.as(staging, ['admin']);
  });
  /** Headers of a signed-in portal user: only one may see the replace status and swap. */
  const portal = () => h.svc.as(staging, ['admin'], `user:${randomUUID()}`);

  const exportedNames = async () => {
    const id = await startExport('collection=tools', client);
    await completed(id, client);
    return (JSON.parse((await download(id, client)).body as string) as Record<string, any>[]).map((r) => [r.name, r.generation]);
  };

  it('stay out of an export until the swap, and are what it exports after', async () => {
    const acker = await acknowledgeIndexing(h, (e) => e.tenant_id !== staging);
    try {
      await create(client, bolt({ collection: 'tools', name: 'Hammer' }));
      const begun = await client.post(RECORDS_REPLACE_BEGIN.path, { collection: 'tools', new_records: 1 });
      expect(begun.status).toBe(200);
      const generation: number = begun.body.generation;
      const written = await client.post(RECORDS_BULK_UPSERT.path, {
        collection: 'tools',
        record_type: 'product',
        source_type: 'file_upload',
        generation,
        records: [{ name: 'Hammer 2026', collection_data: {} }],
      });
      expect(written.status).toBe(200);
      expect(await exportedNames()).toEqual([['Hammer', 1]]);

      // Uploaded and indexed, ready to swap: still not exported.
      expect((await client.post(RECORDS_REPLACE_FINISH.path, { collection: 'tools', generation, summary: { accepted: 1 } })).status).toBe(204);
      await eventually(async () => {
        const res = await request(h.svc.instance.app).get('/portal/collections/tools/replace-status').set(portal());
        expect(res.body.ready_to_swap).toBe(true);
      });
      expect(await exportedNames()).toEqual([['Hammer', 1]]);

      expect((await request(h.svc.instance.app).post('/portal/collections/tools/swap').set(portal())).status).toBe(200);
      expect(await exportedNames()).toEqual([['Hammer 2026', generation]]);
    } finally {
      await acker.stop();
    }
  });
});

describe('a job still processing', () => {
  let running: string;
  let finished: string;

  beforeAll(async () => {
    finished = await startExport('collection=fasteners');
    await completed(finished);
    // A job another replica is running: its lease is fresh, so this process leaves it alone.
    running = randomUUID();
    await db
      .insertInto('records.exports')
      .values({ id: running, tenant_id: tenant, collection: 'fasteners', format: 'csv', record_status: 'active', generation: 1, total: 3, progress: 1, parts: 1, owner: randomUUID() })
      .execute();
  });

  it('is listed by GET /export/active with its collection, format and start, and a finished one is not', async () => {
    const res = await admin.get('/export/active');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { export_id: running, status: 'processing', progress: 1, total: 3, collection: 'fasteners', format: 'csv', created_at: expect.any(String) },
    ]);
    expect((await h.as(newTenant(), ['admin']).get('/export/active')).body).toEqual([]);
  });

  it('has no file yet: download answers 409', async () => {
    const res = await admin.get(`/export/${running}/download`);
    expect(res.status).toBe(409);
    expect(res.body.detail).toContain('processing');
  });
});
