import { UnparseableFileError } from './types';
import { parseJson } from './json';
import { byteStream, collect, dataOf, failuresOf, fixtureStream } from '../../test/fixtures/fixtures';

const read = (input: Parameters<typeof parseJson>[0]) => collect(parseJson(input, {}));

describe('parseJson', () => {
  it('streams the objects of a top-level array as they are, nested values and types included', async () => {
    const { items, error } = await read(fixtureStream('products.json'));
    expect(error).toBeUndefined();
    expect(items).toEqual([
      {
        index: 0,
        ok: true,
        data: { name: 'Hex bolt M8x40', ean: '4006381333931', price: 0.12, in_stock: true, dimensions: { length_mm: 40 } },
      },
      { index: 1, ok: true, data: { name: 'Washer 8.4', ean: '4006381333948', price: 0.03, in_stock: false, tags: ['washer', 'M8'] } },
      { index: 2, ok: true, data: { name: 'Wall anchor 10', price: 12, material: null } },
    ]);
  });

  it('streams the array of objects an object holds, skipping its other members', async () => {
    const { items, error } = await read(fixtureStream('products-wrapped.json'));
    expect(error).toBeUndefined();
    expect(dataOf(items)).toEqual([
      { name: 'Hex bolt M8x40', sku: '0042' },
      { name: 'Washer 8.4', sku: '0815' },
    ]);
  });

  it('skips arrays of other values beside the array of objects', async () => {
    const json = '{"tags": ["a", "b"], "matrix": [[1, 2]], "empty": [], "items": [{"name": "x"}], "note": "done"}';
    expect(dataOf((await read(byteStream(json))).items)).toEqual([{ name: 'x' }]);
  });

  it('reports an element that is not an object and reads on', async () => {
    const { items, error } = await read(fixtureStream('bad-element.json'));
    expect(error).toBeUndefined();
    expect(items).toEqual([
      { index: 0, ok: true, data: { name: 'First' } },
      { index: 1, ok: false, error: 'element 1 is a string, not an object', raw: 'not an object' },
      { index: 2, ok: false, error: 'element 2 is null, not an object', raw: null },
      { index: 3, ok: true, data: { name: 'Fourth' } },
    ]);
  });

  it('gives the same items when the file arrives one byte at a time', async () => {
    for (const name of ['products.json', 'products-wrapped.json', 'bad-element.json']) {
      expect(await read(fixtureStream(name, 1))).toEqual(await read(fixtureStream(name)));
    }
  });

  it('ends with UnparseableFileError at a syntax error, after the records before it', async () => {
    const { items, error } = await read(fixtureStream('invalid.json'));
    expect(dataOf(items)).toEqual([{ name: 'First' }]);
    expect(error).toBeInstanceOf(UnparseableFileError);
    expect(error!.message).toBe('invalid JSON after 1 record: expected an object key');
  });

  it('reads a file with a byte order mark, and yields nothing for an empty array', async () => {
    expect(dataOf((await read(byteStream('\ufeff[{"name": "a"}]'))).items)).toEqual([{ name: 'a' }]);
    expect(await read(byteStream('[]'))).toEqual({ items: [] });
    expect(await read(byteStream('{"records": []}'))).toEqual({ items: [] });
  });

  it('keeps a "__proto__" key as an ordinary field', async () => {
    const data = dataOf((await read(byteStream('[{"name": "a", "__proto__": {"polluted": true}}]'))).items)[0]!;
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
    expect(Object.keys(data)).toEqual(['name', '__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    ['an empty file', '', 'the JSON file is empty'],
    ['white space only', ' \n ', 'the JSON file is empty'],
    ['a string document', '"records"', 'the JSON document is a string, not an array of objects or an object holding one'],
    ['a number document', '42', 'the JSON document is a number'],
    ['an object without an array of objects', '{"name": "a", "tags": ["x"]}', 'the JSON object holds no array of objects'],
    ['an object with two arrays of objects', '{"a": [{"x": 1}], "b": [{"y": 2}]}', 'the JSON object holds more than one array of objects ("a" and "b")'],
    ['CSV text', 'name,price\nbolt,1\n', 'invalid JSON: expected a value'],
    ['a truncated document', '[{"name": "a"}, {"name": "b"', 'invalid JSON after 1 record'],
    ['trailing content', '[{"name": "a"}, {"name": "b"}] [', 'invalid JSON after 2 records'],
    ['a binary file', Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0, 0x08, 0]), 'the file is binary, not JSON'],
  ])('rejects %s as unparseable', async (_case, content, message) => {
    const { error } = await read(byteStream(content));
    expect(error).toBeInstanceOf(UnparseableFileError);
    expect(error!.message).toContain(message);
  });

  it('passes on a failure of the upload stream unchanged', async () => {
    const failure = new Error('connection reset');
    const input = byteStream('[{"name": "a"}');
    input.destroy(failure);
    expect((await read(input)).error).toBe(failure);
  });

  describe('bounds', () => {
    const nested = (levels: number) => `${'{"n":'.repeat(levels)}1${'}'.repeat(levels)}`;
    const json = (text: string) => read(byteStream(text));

    it('refuses a file nested 100,000 levels deep after the records before it', async () => {
      const { items, error } = await json(`[{"name": "ok"}, {"name": "deep", "d": ${nested(100_000)}}, {"name": "never"}]`);
      expect(dataOf(items)).toEqual([{ name: 'ok' }]);
      expect(error).toBeInstanceOf(UnparseableFileError);
      expect(error!.message).toBe('the JSON document is nested more than 100 levels deep (after 1 record)');
    });

    it('makes an element nested more than 64 levels below its object a dead letter and reads on', async () => {
      const { items, error } = await json(`{"records": [{"name": "deep", "d": ${nested(70)}}, {"name": "next", "d": ${nested(60)}}]}`);
      expect(error).toBeUndefined();
      expect(failuresOf(items)).toEqual([{ index: 0, error: 'element 0 is nested more than 64 levels deep', raw: null }]);
      expect(dataOf(items).map((d) => d.name)).toEqual(['next']);
    });

    it('makes an element over 1 MB a dead letter without keeping it, and reads on', async () => {
      const wide = `{"name": "big", ${Array.from({ length: 60_000 }, (_, i) => `"k${i}": "abcdefghij"`).join(', ')}}`;
      const long = JSON.stringify('x'.repeat(1024 * 1024 + 1));
      const { items, error } = await json(`[{"name": "a"}, ${wide}, ${long}, {"name": "d"}]`);
      expect(error).toBeUndefined();
      expect(failuresOf(items)).toEqual([
        { index: 1, error: 'element 1 is larger than 1 MB', raw: null },
        { index: 2, error: 'element 2 is larger than 1 MB', raw: null },
      ]);
      expect(dataOf(items)).toEqual([{ name: 'a' }, { name: 'd' }]);
    });
  });
});
