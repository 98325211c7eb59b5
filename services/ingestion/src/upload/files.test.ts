import { createHash } from 'node:crypto';
import { fixtureBytes } from '../../test/fixtures/fixtures';
import { as, byName, newTenant, recordsOf, startSystem, type System } from '../../test/helpers';

let system: System;

beforeAll(async () => {
  system = await startSystem();
});
afterAll(() => system.stop());

interface FileUpload {
  file: Buffer;
  fileName: string;
  contentType?: string;
  /** Form fields sent before the file part. */
  before?: Record<string, string>;
  /** Form fields sent after the file part, as FormData does when they are appended after it. */
  after?: Record<string, string>;
  query?: string;
}

function upload(tenant: string, collection: string, endpoint: 'upload' | 'pdf', f: FileUpload) {
  let req = as(system.ingestion, tenant).post(`/upload/${collection}/product/${endpoint}${f.query ?? ''}`);
  for (const [k, v] of Object.entries(f.before ?? {})) req = req.field(k, v);
  req = req.attach('file', f.file, { filename: f.fileName, contentType: f.contentType ?? 'application/octet-stream' });
  for (const [k, v] of Object.entries(f.after ?? {})) req = req.field(k, v);
  return req;
}

const fixture = (name: string, extra: Partial<FileUpload> = {}): FileUpload => ({ file: fixtureBytes(name), fileName: name, ...extra });
const sha256 = (b: Buffer) => `sha256:${createHash('sha256').update(b).digest('hex')}`;

describe('CSV files', () => {
  it('stores each row with typed collection_data and the file as its source', async () => {
    const tenant = newTenant();
    const res = await upload(tenant, 'csv', 'upload', fixture('products.csv', { contentType: 'text/csv' }));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      status: 'complete',
      summary: { submitted: 3, accepted: 3, rejected: 0, dedup_skipped: 0 },
      errors: [],
      metadata: { file_hash: sha256(fixtureBytes('products.csv')), reconciliation_passed: true, pipeline_backpressure: false },
    });
    const stored = await recordsOf(system, tenant, 'csv');
    expect(stored.map((r) => r.name)).toEqual(['Anchor "Max" 10', 'Hex bolt M8x40', 'Washer 8.4']);
    expect(byName(stored, 'Hex bolt M8x40')).toMatchObject({
      description: 'Fully threaded, DIN 933',
      collection_data: { sku: '0042', ean: '4006381333931', price: 0.12, stock: 1500, in_stock: true, material: 'Stainless steel A2' },
      source_type: 'file_upload',
      source_name: 'products.csv',
      source_id: null,
    });
    expect(byName(stored, 'Washer 8.4')).toMatchObject({
      description: 'Flat washer\nfor M8 bolts',
      collection_data: { sku: '0815', ean: '4006381333948', price: 0.03, stock: -3, in_stock: false },
    });
  });

  it('reads a semicolon-delimited file with a byte order mark and decimal commas', async () => {
    const tenant = newTenant();
    const res = await upload(tenant, 'semi', 'upload', fixture('products-semicolon-bom.csv'));
    expect(res.body.summary).toEqual({ submitted: 2, accepted: 2, rejected: 0, dedup_skipped: 0 });
    const stored = await recordsOf(system, tenant, 'semi');
    expect(byName(stored, 'Schraube M6').collection_data).toEqual({ price: 1.25, ean: '4006381333962', in_stock: true, note: 'a; b' });
    expect(byName(stored, 'Mutter M6').collection_data).toEqual({ price: 0.08, in_stock: false });
  });

  it('stores a quoted empty cell as an empty string and leaves an empty cell out', async () => {
    const tenant = newTenant();
    const file = Buffer.from('name,color,note\nBolt,"",\n');
    const res = await upload(tenant, 'empty-cells', 'upload', { file, fileName: 'cells.csv', contentType: 'text/csv' });
    expect(res.status).toBe(201);
    expect(byName(await recordsOf(system, tenant, 'empty-cells'), 'Bolt').collection_data).toEqual({ color: '' });
  });

  it("reads Excel's Unicode Text export: UTF-16LE, tab-separated, decimal commas, named .txt", async () => {
    const tenant = newTenant();
    const text = 'name\tprice\tstock\r\nBohrer 8 mm\t1.234,56\t2.500\r\nSäge\t0,5\t12\r\n';
    const file = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const res = await upload(tenant, 'unicode-text', 'upload', { file, fileName: 'Export.txt', contentType: 'text/plain' });
    expect(res.status).toBe(201);
    const stored = await recordsOf(system, tenant, 'unicode-text');
    expect(byName(stored, 'Bohrer 8 mm').collection_data).toEqual({ price: 1234.56, stock: 2500 });
    expect(byName(stored, 'Säge').collection_data).toEqual({ price: 0.5, stock: 12 });
  });

  it.each([
    ['before the file', { before: { name_column: 'sku' } }],
    ['after the file', { after: { name_column: 'sku' } }],
    ['as a query parameter', { query: '?name_column=sku' }],
  ])('takes the name from name_column sent %s, keeping the name column as data', async (_how, extra) => {
    const tenant = newTenant();
    const res = await upload(tenant, 'by-sku', 'upload', fixture('products.csv', extra));
    expect(res.status).toBe(201);
    const stored = await recordsOf(system, tenant, 'by-sku');
    expect(stored.map((r) => r.name)).toEqual(['0042', '0815', 'A-10']);
    expect(byName(stored, '0042').collection_data).toMatchObject({ name: 'Hex bolt M8x40', price: 0.12 });
  });

  it('answers 422 naming the name column when the file has no such column', async () => {
    const res = await upload(newTenant(), 'csv', 'upload', fixture('products.csv', { before: { name_column: 'title' } }));
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'file'], msg: expect.stringContaining('title') });
  });

  it('rejects malformed rows with dead letters and stores the others', async () => {
    const tenant = newTenant();
    const res = await upload(tenant, 'malformed', 'upload', fixture('malformed.csv'));
    expect(res.status).toBe(201);
    expect(res.body.summary).toEqual({ submitted: 6, accepted: 3, rejected: 3, dedup_skipped: 0 });
    expect(res.body.errors).toEqual([
      { record_index: 1, error: 'line 3: expected 3 fields, found 4', record_data: { value: 'Extra field,2.5,steel,oops' } },
      { record_index: 2, error: expect.stringMatching(/^line 4: /), record_data: { value: '"Text after quote"x,3,brass' } },
      { record_index: 4, error: 'line 6: expected 3 fields, found 2', record_data: { value: 'Short row,5' } },
    ]);
    expect((await as(system.ingestion, tenant).get(`/uploads/${res.body.upload_id}/errors`)).body).toEqual(res.body.errors);
    expect((await recordsOf(system, tenant, 'malformed')).map((r) => r.name)).toEqual(['Another good one', 'Good bolt', 'Last good']);
  });

  it('skips a re-upload of the same file as duplicates', async () => {
    const tenant = newTenant();
    await upload(tenant, 'again', 'upload', fixture('products.csv'));
    const res = await upload(tenant, 'again', 'upload', fixture('products.csv'));
    expect(res.body.summary).toEqual({ submitted: 3, accepted: 0, rejected: 0, dedup_skipped: 3 });
    expect(await recordsOf(system, tenant, 'again')).toHaveLength(3);
  });

  it('streams a file larger than the look-ahead and writes every row in chunks', async () => {
    const tenant = newTenant();
    const filler = 'x'.repeat(900);
    const rows = Array.from({ length: 2500 }, (_, i) => `Row ${i},R-${i},${i},${filler}`);
    const file = Buffer.from(`name,source_id,n,filler\n${rows.join('\n')}\n`);
    expect(file.length).toBeGreaterThan(2 * 1024 * 1024);
    const res = await upload(tenant, 'large', 'upload', { file, fileName: 'large.csv' });
    expect(res.status).toBe(201);
    expect(res.body.summary).toEqual({ submitted: 2500, accepted: 2500, rejected: 0, dedup_skipped: 0 });
    expect(res.body.metadata).toMatchObject({ file_hash: sha256(file), reconciliation_passed: true });
  });

  it('answers 422 when name_column comes after a file larger than the look-ahead, saying how it was read', async () => {
    const tenant = newTenant();
    // Well past the look-ahead, so the field cannot have arrived by the time reading starts.
    const rows = Array.from({ length: 3000 }, (_, i) => `Row ${i},T-${i},${'y'.repeat(1000)}`);
    const file = Buffer.from(`name,title,filler\n${rows.join('\n')}\n`);
    const res = await upload(tenant, 'late', 'upload', { file, fileName: 'late.csv', after: { name_column: 'title' } });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'name_column'], msg: expect.stringMatching(/before the file/) });
  });
});

describe('JSON, NDJSON and XML files', () => {
  it('stores the objects of a JSON array with nested objects, lists and nulls as they are', async () => {
    const tenant = newTenant();
    const res = await upload(tenant, 'json', 'upload', fixture('products.json', { contentType: 'application/json' }));
    expect(res.body.summary).toEqual({ submitted: 3, accepted: 3, rejected: 0, dedup_skipped: 0 });
    const stored = await recordsOf(system, tenant, 'json');
    expect(byName(stored, 'Hex bolt M8x40')).toMatchObject({
      collection_data: { ean: '4006381333931', price: 0.12, in_stock: true, dimensions: { length_mm: 40 } },
      source_type: 'file_upload',
      source_name: 'products.json',
    });
    expect(byName(stored, 'Washer 8.4').collection_data).toEqual({ ean: '4006381333948', price: 0.03, in_stock: false, tags: ['washer', 'M8'] });
    expect(byName(stored, 'Wall anchor 10').collection_data).toEqual({ price: 12, material: null });
  });

  it('reads the records array of a JSON object and ignores its other members', async () => {
    const tenant = newTenant();
    const res = await upload(tenant, 'wrapped', 'upload', fixture('products-wrapped.json'));
    expect(res.body.summary).toMatchObject({ submitted: 2, accepted: 2 });
    expect((await recordsOf(system, tenant, 'wrapped')).map((r) => [r.name, r.collection_data])).toEqual([
      ['Hex bolt M8x40', { sku: '0042' }],
      ['Washer 8.4', { sku: '0815' }],
    ]);
  });

  it('rejects JSON array elements that are not objects, one by one', async () => {
    const tenant = newTenant();
    const res = await upload(tenant, 'bad-element', 'upload', fixture('bad-element.json'));
    expect(res.body.summary).toEqual({ submitted: 4, accepted: 2, rejected: 2, dedup_skipped: 0 });
    expect(res.body.errors).toEqual([
      { record_index: 1, error: 'element 1 is a string, not an object', record_data: { value: 'not an object' } },
      { record_index: 2, error: 'element 2 is null, not an object', record_data: { value: null } },
    ]);
  });

  it('answers 422 for a JSON file that cannot be parsed, storing nothing', async () => {
    const tenant = newTenant();
    const res = await upload(tenant, 'invalid-json', 'upload', fixture('invalid.json'));
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'file'], msg: expect.stringMatching(/invalid JSON/) });
    expect(await recordsOf(system, tenant, 'invalid-json')).toEqual([]);
  });

  it('stores NDJSON lines and rejects the bad ones with dead letters', async () => {
    const tenant = newTenant();
    const res = await upload(tenant, 'ndjson', 'upload', fixture('products.ndjson'));
    expect(res.body.summary).toEqual({ submitted: 4, accepted: 2, rejected: 2, dedup_skipped: 0 });
    expect(res.body.errors.map((e: { record_index: number; error: string }) => [e.record_index, e.error])).toEqual([
      [1, expect.stringMatching(/^line 3: invalid JSON/)],
      [2, 'line 4: an array, not a JSON object'],
    ]);
    const stored = await recordsOf(system, tenant, 'ndjson');
    expect(byName(stored, 'Hex bolt M8x40').collection_data).toEqual({ ean: '4006381333931', price: 0.12 });
    expect(byName(stored, 'Wall anchor 10').collection_data).toEqual({ in_stock: true });
  });

  it('stores repeated XML elements with child elements and attributes as typed collection_data', async () => {
    const tenant = newTenant();
    const res = await upload(tenant, 'xml', 'upload', fixture('catalog.xml'));
    expect(res.body.summary).toEqual({ submitted: 2, accepted: 2, rejected: 0, dedup_skipped: 0 });
    const stored = await recordsOf(system, tenant, 'xml');
    expect(byName(stored, 'Hex bolt M8x40')).toMatchObject({
      description: 'Fully threaded, <b>DIN 933</b> & ISO 4017',
      collection_data: {
        id: 'P-1',
        sku: '0042',
        ean: '4006381333931',
        price: { currency: 'EUR', '#text': 0.12 },
        in_stock: true,
        tag: ['bolt', 'M8'],
        dimensions: { length: 40, diameter: 8, unit: 'mm' },
      },
      source_name: 'catalog.xml',
    });
    expect(byName(stored, 'Washer 8.4').collection_data).toMatchObject({ id: 'P-2', '@name': 'washer-8', in_stock: false });
  });

  it('makes records of the element record_tag names', async () => {
    const tenant = newTenant();
    const res = await upload(tenant, 'tagged', 'upload', fixture('items-nested.xml', { after: { record_tag: 'item' } }));
    expect(res.body.summary).toMatchObject({ submitted: 3, accepted: 3 });
    const stored = await recordsOf(system, tenant, 'tagged');
    expect(stored.map((r) => r.name)).toEqual(['Drill', 'Hammer', 'Saw']);
    expect(byName(stored, 'Drill').collection_data).toEqual({ item: { name: 'Bit' } });
  });

  it('rejects a broken XML element on its own and stores the rest', async () => {
    const tenant = newTenant();
    const res = await upload(tenant, 'xml-broken', 'upload', fixture('catalog-broken.xml'));
    expect(res.body.summary).toEqual({ submitted: 4, accepted: 3, rejected: 1, dedup_skipped: 0 });
    expect(res.body.errors).toEqual([{ record_index: 1, error: expect.stringMatching(/Unmatched closing tag: nmae/), record_data: expect.any(Object) }]);
    expect((await recordsOf(system, tenant, 'xml-broken')).map((r) => r.name)).toEqual(['First', 'Fourth & last', 'Third']);
  });
});

describe('PDF files', () => {
  it('makes one record of a PDF of up to three pages, named by its first heading, with markdown text', async () => {
    const tenant = newTenant();
    const res = await upload(tenant, 'docs', 'pdf', fixture('guide.pdf', { contentType: 'application/pdf' }));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      status: 'complete',
      summary: { submitted: 1, accepted: 1, rejected: 0, dedup_skipped: 0 },
      metadata: { file_hash: sha256(fixtureBytes('guide.pdf')), reconciliation_passed: true },
    });
    const [record] = await recordsOf(system, tenant, 'docs');
    expect(record).toMatchObject({ name: 'Installation Guide', source_type: 'file_upload', source_name: 'guide.pdf', collection_data: { page_count: 2 } });
    expect(record!.description).toMatch(/^# Installation Guide\n/);
    expect(record!.description).toContain('## Before you start\n\n- Check the wall for hidden cables');
  });

  it('names the record of a PDF by its document title', async () => {
    const tenant = newTenant();
    await upload(tenant, 'titled', 'pdf', fixture('titled.pdf'));
    const [record] = await recordsOf(system, tenant, 'titled');
    expect(record).toMatchObject({ name: 'Fastener Catalogue 2024', collection_data: { page_count: 1, title: 'Fastener Catalogue 2024' } });
  });

  it('makes one record per page of a PDF of five pages', async () => {
    const tenant = newTenant();
    const res = await upload(tenant, 'manual', 'pdf', fixture('manual-5-pages.pdf'));
    expect(res.body.summary).toEqual({ submitted: 5, accepted: 5, rejected: 0, dedup_skipped: 0 });
    const stored = await recordsOf(system, tenant, 'manual');
    expect(stored.map((r) => [r.collection_data.page, r.name]).sort()).toEqual([
      [1, 'Pump Manual'],
      [2, 'Safety'],
      [3, 'Pump Manual (page 3)'],
      [4, 'Technical Data'],
      [5, 'Pump Manual (page 5)'],
    ]);
    expect(byName(stored, 'Technical Data').description).toContain('- Power: 45 W');
  });

  it('answers 422 for a PDF that cannot be read', async () => {
    const res = await upload(newTenant(), 'docs', 'pdf', fixture('encrypted.pdf'));
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'file'], msg: expect.stringMatching(/password/) });
  });
});

describe('files of the wrong kind and missing files', () => {
  const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

  it.each([
    ['a PDF sent to /upload', 'upload', fixture('guide.pdf'), /PDF.*\/pdf/],
    ['a CSV sent to /pdf', 'pdf', fixture('products.csv'), /CSV/],
    ['a PNG image sent to /upload', 'upload', { file: png, fileName: 'photo.png', contentType: 'image/png' }, /Unrecognised file/],
    ['a PNG image sent to /pdf', 'pdf', { file: png, fileName: 'photo.png', contentType: 'image/png' }, /Unrecognised file/],
  ] as const)('answers 422 naming the problem for %s', async (_what, endpoint, f, message) => {
    const tenant = newTenant();
    const res = await upload(tenant, 'wrong', endpoint, f);
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'file'], type: 'value_error', msg: expect.stringMatching(message) });
    expect(await recordsOf(system, tenant, 'wrong')).toEqual([]);
  });

  it('answers 422 when the form holds no file', async () => {
    const res = await as(system.ingestion, newTenant()).post('/upload/x/product/upload').field('name_column', 'name');
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'file'], type: 'missing' });
  });

  it('answers 422 when the body is not a multipart form', async () => {
    const res = await as(system.ingestion, newTenant()).post('/upload/x/product/upload').send({ name: 'x' });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'file'], type: 'missing' });
  });

  it('answers 422 when the file is sent under another field name', async () => {
    const res = await as(system.ingestion, newTenant()).post('/upload/x/product/upload').attach('document', fixtureBytes('products.csv'), 'products.csv');
    expect(res.status).toBe(422);
    expect(res.body.detail[0].msg).toMatch(/field named file/);
  });
});
