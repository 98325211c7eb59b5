import { UnparseableFileError } from './types';
import { parseNdjson } from './ndjson';
import { byteStream, collect, fixtureStream } from '../../test/fixtures/fixtures';

const read = (input: Parameters<typeof parseNdjson>[0]) => collect(parseNdjson(input, {}));

describe('parseNdjson', () => {
  it('reads one object per line, skipping blank lines and reporting bad lines by line number', async () => {
    const { items, error } = await read(fixtureStream('products.ndjson'));
    expect(error).toBeUndefined();
    expect(items).toEqual([
      { index: 0, ok: true, data: { name: 'Hex bolt M8x40', ean: '4006381333931', price: 0.12 } },
      {
        index: 1,
        ok: false,
        error: expect.stringMatching(/^line 3: invalid JSON \(.+\)$/),
        raw: '{"name": "Washer 8.4", "price": 0.03',
      },
      { index: 2, ok: false, error: 'line 4: an array, not a JSON object', raw: '["an", "array"]' },
      { index: 3, ok: true, data: { name: 'Wall anchor 10', in_stock: true } },
    ]);
  });

  it('gives the same items when the stream arrives one byte at a time', async () => {
    expect(await read(fixtureStream('products.ndjson', 1))).toEqual(await read(fixtureStream('products.ndjson')));
  });

  it('reads CRLF line ends, a byte order mark and a last line without a line end', async () => {
    const { items } = await read(byteStream('\ufeff{"a": 1}\r\n\r\n{"b": "ü"}', 3));
    expect(items).toEqual([
      { index: 0, ok: true, data: { a: 1 } },
      { index: 1, ok: true, data: { b: 'ü' } },
    ]);
  });

  it('reports scalars and null as lines that are not objects', async () => {
    const { items } = await read(byteStream('42\n"text"\nnull\ntrue\n'));
    expect(items.map((item) => (item.ok ? 'ok' : item.error))).toEqual([
      'line 1: a number, not a JSON object',
      'line 2: a string, not a JSON object',
      'line 3: null, not a JSON object',
      'line 4: a boolean, not a JSON object',
    ]);
  });

  it('keeps the first 1,000 characters of a long bad line', async () => {
    const line = `{"name": "${'x'.repeat(5000)}`;
    const { items } = await read(byteStream(`${line}\n{"ok": true}\n`));
    expect(items[0]).toEqual({ index: 0, ok: false, error: expect.stringContaining('line 1: invalid JSON'), raw: `${line.slice(0, 1000)}…` });
    expect(items[1]).toEqual({ index: 1, ok: true, data: { ok: true } });
  });

  it('reports a line over 1 MB without holding it, and reads on', async () => {
    const huge = `{"name": "${'x'.repeat(1024 * 1024 + 10)}"}`;
    const { items, error } = await read(byteStream(`{"first": 1}\n${huge}\n{"last": 3}\n`));
    expect(error).toBeUndefined();
    expect(items).toEqual([
      { index: 0, ok: true, data: { first: 1 } },
      { index: 1, ok: false, error: 'line 2: longer than 1 MB (1,048,576 characters)', raw: `${huge.slice(0, 1000)}…` },
      { index: 2, ok: true, data: { last: 3 } },
    ]);
  });

  it('reads a line of exactly 1 MB, and reports one a character longer whichever way the stream is cut', async () => {
    const line = (chars: number) => `{"n":"${'y'.repeat(chars - 8)}"}`;
    for (const chunk of [64 * 1024, 4099]) {
      const { items } = await read(byteStream(`${line(1024 * 1024)}\n${line(1024 * 1024 + 1)}\n{"after": 1}`, chunk));
      expect(items.map((item) => (item.ok ? 'ok' : item.error))).toEqual(['ok', 'line 2: longer than 1 MB (1,048,576 characters)', 'ok']);
    }
  });

  it('reads a line nested 100,000 levels deep as one item, and the next line after it', async () => {
    const deep = `{"x":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const { items, error } = await read(byteStream(`${deep}\n{"name": "healthy"}\n{"y":${'['.repeat(100_000)}\n`));
    expect(error).toBeUndefined();
    expect(items).toHaveLength(3);
    expect(items[1]).toEqual({ index: 1, ok: true, data: { name: 'healthy' } });
    expect(items[2]).toMatchObject({ index: 2, ok: false, error: expect.stringMatching(/^line 3: invalid JSON/) });
  });

  it('yields nothing for an empty stream', async () => {
    expect(await read(byteStream(''))).toEqual({ items: [] });
    expect(await read(byteStream('\n\n'))).toEqual({ items: [] });
  });

  it('rejects a binary file as unparseable', async () => {
    const { error } = await read(byteStream(Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0])));
    expect(error).toBeInstanceOf(UnparseableFileError);
    expect(error!.message).toBe('the file is binary, not NDJSON');
  });
});
