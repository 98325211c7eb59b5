import { Readable } from 'node:stream';
import { parseCsv } from './csv';
import { parseJson } from './json';
import { parseNdjson } from './ndjson';
import type { Parser } from './types';
import { parseXml } from './xml';

/*
 * Parsing a large upload holds one chunk and one record at a time, not the file. The files are generated as they are
 * read, so the test itself holds nothing either. Sizes default to what runs in seconds under jest, where csv-parse
 * runs several times slower than in plain Node (its per-byte loop reads globals, which are slow in a vm context);
 * memory does not grow with the size, and PARSER_MEMORY_MB=50 runs every format at the upload limit.
 */
const LIMIT_MB = 200;
const override = Number(process.env.PARSER_MEMORY_MB) || undefined;
const MB = 1024 * 1024;

const MATERIALS = ['steel', 'stainless steel A2', 'brass', 'zinc-plated steel', 'nylon PA6'];

function product(i: number) {
  return {
    name: `Hex bolt M${6 + (i % 10)}x${20 + (i % 80)} no. ${i}`,
    description: `Fully threaded hex bolt, ${MATERIALS[i % MATERIALS.length]}, for general assembly; packed in boxes of ${50 + (i % 5) * 50}.`,
    ean: String(4006381000000 + i),
    din: `DIN ${900 + (i % 40)}`,
    sku: `SKU-${String(i).padStart(8, '0')}`,
    price: (i % 10000) / 100,
    material: MATERIALS[i % MATERIALS.length]!,
    in_stock: i % 3 !== 0,
  };
}

type Product = ReturnType<typeof product>;

/** Chunks of about 64 KB until `bytes` are written: a head, one piece per product, a tail. */
function* generated(bytes: number, head: string, piece: (p: Product, i: number) => string, tail: string): Generator<Buffer> {
  let written = 0;
  let batch = head;
  for (let i = 0; written + batch.length < bytes; i++) {
    batch += piece(product(i), i);
    if (batch.length >= 64 * 1024) {
      written += batch.length;
      yield Buffer.from(batch);
      batch = '';
    }
  }
  yield Buffer.from(batch + tail);
}

const csvQuote = (text: string) => `"${text.replace(/"/g, '""')}"`;

const FORMATS: { name: string; parser: Parser; megabytes: number; file: (bytes: number) => Generator<Buffer> }[] = [
  {
    name: 'CSV',
    parser: parseCsv,
    megabytes: 5,
    file: (bytes) =>
      generated(
        bytes,
        'name,description,ean,din,sku,price,material,in_stock\n',
        (p) => `${p.name},${csvQuote(p.description)},${p.ean},${p.din},${p.sku},${p.price},${p.material},${p.in_stock}\n`,
        '',
      ),
  },
  { name: 'NDJSON', parser: parseNdjson, megabytes: 50, file: (bytes) => generated(bytes, '', (p) => `${JSON.stringify(p)}\n`, '') },
  { name: 'JSON', parser: parseJson, megabytes: 10, file: (bytes) => generated(bytes, '{"records": [', (p, i) => `${i ? ',' : ''}\n${JSON.stringify(p)}`, ']}') },
  {
    name: 'XML',
    parser: parseXml,
    megabytes: 10,
    file: (bytes) =>
      generated(
        bytes,
        '<?xml version="1.0"?>\n<catalog><products>\n',
        (p) =>
          `<product sku="${p.sku}"><name>${p.name}</name><description>${p.description}</description><ean>${p.ean}</ean>` +
          `<din>${p.din}</din><price>${p.price}</price><material>${p.material}</material><in_stock>${p.in_stock}</in_stock></product>\n`,
        '</products></catalog>\n',
      ),
  },
];

describe('memory while parsing a large upload', () => {
  it.each(FORMATS)('stays far below 200 MB for a generated $name file', async ({ name, parser, megabytes, file }) => {
    const bytes = (override ?? megabytes) * MB;
    (global as { gc?: () => void }).gc?.();
    const before = process.memoryUsage();
    let peakHeap = before.heapUsed;
    let peakRss = before.rss;
    let records = 0;
    let last: Record<string, unknown> | undefined;
    const started = performance.now();
    for await (const item of parser(Readable.from(file(bytes)), {})) {
      if (!item.ok) throw new Error(`item ${item.index}: ${item.error}`);
      records++;
      last = item.data;
      if (records % 2000 === 0) {
        const now = process.memoryUsage();
        peakHeap = Math.max(peakHeap, now.heapUsed);
        peakRss = Math.max(peakRss, now.rss);
      }
    }
    const seconds = (performance.now() - started) / 1000;
    const heapGrowth = (peakHeap - before.heapUsed) / MB;
    const rssGrowth = (peakRss - before.rss) / MB;
    process.stdout.write(
      `${name}: ${bytes / MB} MB, ${records} records in ${seconds.toFixed(1)} s (${Math.round(records / seconds)} records/s, ` +
        `${(bytes / MB / seconds).toFixed(1)} MB/s); peak growth heap ${heapGrowth.toFixed(0)} MB, rss ${rssGrowth.toFixed(0)} MB\n`,
    );
    expect(records).toBeGreaterThan(bytes / 400);
    expect(last).toMatchObject({ din: expect.stringMatching(/^DIN \d+$/), in_stock: expect.any(Boolean) });
    expect(String(last!.ean)).toMatch(/^400638\d{7}$/);
    expect(heapGrowth).toBeLessThan(LIMIT_MB);
    expect(rssGrowth).toBeLessThan(LIMIT_MB);
  }, 120_000);
});
