import { buildPdf, layout } from './fixtures/make-pdfs.js';
import { as, newTenant, recordsOf, startSystem, type System } from './helpers';

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
