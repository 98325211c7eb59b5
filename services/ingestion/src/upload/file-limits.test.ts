import { buildPdf, layout } from '../../test/fixtures/make-pdfs.js';
import { as, newTenant, recordsOf, startSystem, type System } from '../../test/helpers';

/** Files built to hurt the parsers: each is answered with a 422 or becomes dead letters, never a 500 or a hang. */
let system: System;

beforeAll(async () => {
  system = await startSystem();
});
afterAll(() => system.stop());

function upload(tenant: string, collection: string, path: string, file: Buffer, fileName: string) {
  return as(system.ingestion, tenant).post(`${path.replace('{collection}', collection)}`).attach('file', file, { filename: fileName, contentType: 'application/octet-stream' });
}

const selfContaining = buildPdf({
  pages: [layout([{ paragraph: ['A page tree that holds itself.'] }])],
  tree: ({ pagesId }: { pagesId: number }) => `<< /Type /Pages /Kids [${pagesId} 0 R] /Count 1 >>`,
});
const looping = buildPdf({
  pages: [layout([{ paragraph: ['Two page tree nodes holding each other.'] }])],
  tree: ({ pagesId, add }: { pagesId: number; add: (body: string) => number }) => {
    const other = add(`<< /Type /Pages /Parent ${pagesId} 0 R /Kids [${pagesId} 0 R] /Count 1 >>`);
    return `<< /Type /Pages /Kids [${other} 0 R] /Count 1 >>`;
  },
});

describe('PDF page trees that loop', () => {
  it.each([
    ['a /Pages node holding itself, on /upload/{collection}/{record_type}/pdf', '/upload/{collection}/manual/pdf', selfContaining],
    ['two /Pages nodes holding each other, on /upload/{collection}/{record_type}/pdf', '/upload/{collection}/manual/pdf', looping],
    ['a /Pages node holding itself, on the older /ingest/{vertical}/{entity_type}/pdf', '/ingest/{collection}/manual/pdf', selfContaining],
  ])('answers 422 naming the damage for %s', async (_case, path, file) => {
    const tenant = newTenant();
    const res = await upload(tenant, 'loops', path, file, 'loop.pdf');
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'file'], type: 'value_error', msg: expect.stringMatching(/^the PDF is damaged: .*circular/i) });
    expect(await recordsOf(system, tenant, 'loops')).toEqual([]);
  });
});

describe('nesting, record size and field limits in record files', () => {
  const fields = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, i]));

  it.each([
    ['an XML file nested 100,000 levels deep', 'deep.xml', `<catalog><item><name>ok</name></item><item><name>deep</name>${'<n>'.repeat(100_000)}x${'</n>'.repeat(100_000)}</item></catalog>`, /^elements are nested more than 100 levels deep/],
    ['a JSON file with a record nested 100,000 levels deep', 'deep.json', `[{"name": "ok"}, {"name": "deep", "d": ${'{"n":'.repeat(100_000)}1${'}'.repeat(100_000)}}]`, /^the JSON document is nested more than 100 levels deep/],
    ['a CSV file of 100,000 columns', 'wide.csv', `name,${Array.from({ length: 99_999 }, (_, i) => `c${i}`).join(',')}\nBolt${',1'.repeat(99_999)}\n`, /^the CSV header has 100000 columns; a record holds at most 1000 fields/],
  ])('answers 422 naming the problem for %s', async (_case, fileName, text, message) => {
    const tenant = newTenant();
    const res = await upload(tenant, 'hostile', '/upload/{collection}/product/upload', Buffer.from(text), fileName);
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'file'], type: 'value_error', msg: expect.stringMatching(message) });
  });

  it.each([
    ['JSON', 'wide.json', JSON.stringify([{ name: 'wide', ...fields(1001) }, { name: 'fine', ...fields(10) }])],
    ['XML', 'wide.xml', `<items><item><name>wide</name>${Object.keys(fields(1001)).map((k) => `<${k}>1</${k}>`).join('')}</item><item><name>fine</name><a>1</a></item></items>`],
  ])('makes a %s record of more than 1,000 fields a dead letter and stores the others', async (_format, fileName, text) => {
    const tenant = newTenant();
    const res = await upload(tenant, 'wide', '/upload/{collection}/product/upload', Buffer.from(text), fileName);
    expect(res.status).toBe(201);
    expect(res.body.summary).toEqual({ submitted: 2, accepted: 1, rejected: 1, dedup_skipped: 0 });
    expect(res.body.errors).toEqual([
      expect.objectContaining({ record_index: 0, error: 'collection_data has more than 1000 fields, counted over every nested level' }),
    ]);
    expect((await recordsOf(system, tenant, 'wide')).map((r) => r.name)).toEqual(['fine']);
  });

  it('makes a JSON record over 1 MB a dead letter and stores the others', async () => {
    const tenant = newTenant();
    const text = JSON.stringify([{ name: 'big', text: 'x'.repeat(1024 * 1024) }, { name: 'fine' }]);
    const res = await upload(tenant, 'big', '/upload/{collection}/product/upload', Buffer.from(text), 'big.json');
    expect(res.status).toBe(201);
    expect(res.body.summary).toEqual({ submitted: 2, accepted: 1, rejected: 1, dedup_skipped: 0 });
    expect(res.body.errors).toEqual([{ record_index: 0, error: 'element 0 is larger than 1 MB', record_data: { value: null } }]);
  });
});
