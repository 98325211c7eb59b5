import { detectFormat } from './detect';

const bytes = (text: string) => Buffer.from(text, 'utf8');

describe('detectFormat', () => {
  it('goes by the file extension first, whatever the MIME type or content', () => {
    expect(detectFormat('export.CSV', 'application/json', bytes('{"a": 1}'))).toBe('csv');
    expect(detectFormat('feed.jsonl', 'text/plain', bytes('x'))).toBe('ndjson');
    expect(detectFormat('feed.ndjson', '', bytes(''))).toBe('ndjson');
    expect(detectFormat('data.json', '', bytes(''))).toBe('json');
    expect(detectFormat('catalog.xml', '', bytes(''))).toBe('xml');
    expect(detectFormat('manual.pdf', '', bytes(''))).toBe('pdf');
    expect(detectFormat('table.tsv', '', bytes(''))).toBe('csv');
  });

  it('goes by the MIME type when the extension says nothing', () => {
    expect(detectFormat('upload', 'text/csv; charset=utf-8', bytes('{'))).toBe('csv');
    expect(detectFormat('upload.dat', 'application/x-ndjson', bytes('['))).toBe('ndjson');
    expect(detectFormat('upload', 'application/atom+xml', bytes(''))).toBe('xml');
    expect(detectFormat('upload', 'application/pdf', bytes(''))).toBe('pdf');
    expect(detectFormat('upload', 'application/JSON', bytes(''))).toBe('json');
  });

  it('sniffs the first bytes when neither name nor MIME type tells', () => {
    const sniff = (text: string | Buffer) =>
      detectFormat('upload', 'application/octet-stream', typeof text === 'string' ? bytes(text) : text);
    expect(sniff('%PDF-1.7\n%\xe2\xe3')).toBe('pdf');
    expect(sniff('\ufeff  <?xml version="1.0"?><a/>')).toBe('xml');
    expect(sniff('\n[{"name": "a"}]')).toBe('json');
    expect(sniff('{\n  "records": [\n    {"name": "a"}\n  ]\n}')).toBe('json');
    expect(sniff('{"records": [{"name": "a"}]}')).toBe('json');
    expect(sniff('{"name": "a"}\n{"name": "b"}\n')).toBe('ndjson');
    expect(sniff('{"name": "a"}\r\n\r\n{"name": "b"}')).toBe('ndjson');
    expect(sniff('name;price\nbolt;1,5\n')).toBe('csv');
    expect(sniff('name,price\nbolt,1.5\n')).toBe('csv');
    expect(sniff('name\tprice\n')).toBe('csv');
  });

  it('recognises nothing in binary data or plain text', () => {
    expect(detectFormat('image', 'application/octet-stream', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d]))).toBeUndefined();
    expect(detectFormat('notes', 'text/plain', bytes('just some words\nand more'))).toBeUndefined();
    expect(detectFormat('empty', '', Buffer.alloc(0))).toBeUndefined();
  });
});
