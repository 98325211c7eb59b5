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

  it("reads Excel's Unicode Text export (UTF-16LE with a byte order mark, tab-separated, named .txt) as CSV", () => {
    const utf16le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('name\tprice\r\nBohrer\t1,5\r\nSäge\t12\r\n', 'utf16le')]);
    expect(detectFormat('Export.txt', 'text/plain', utf16le)).toBe('csv');
    expect(detectFormat('Export', 'application/octet-stream', utf16le)).toBe('csv');
    const utf16be = Buffer.from(utf16le.subarray(2)).swap16();
    expect(detectFormat('Export.txt', 'text/plain', Buffer.concat([Buffer.from([0xfe, 0xff]), utf16be]))).toBe('csv');
  });

  it('reads a .txt file of delimited text as CSV when its lines hold as many fields as its first', () => {
    const txt = (text: string) => detectFormat('data.txt', 'text/plain', bytes(text));
    expect(txt('name;price;stock\nBolt;1,5;3\nNut;0,2;\n')).toBe('csv');
    expect(txt('name,price\nBolt,1.5\n"Nut, M8",2\n')).toBe('csv');
    expect(txt('name\tnote\nBolt\t"two\nlines"\nNut\tx\t\t\n')).toBe('csv');
    // The last line may be cut short where the first bytes end.
    expect(txt('name;price\nBolt;1\nNu')).toBe('csv');
  });

  it('recognises nothing in prose that holds commas on lines of different field counts', () => {
    const prose = 'Dear team,\nthe bolts, nuts and washers arrived today.\nRegards\n';
    expect(detectFormat('letter.txt', 'text/plain', bytes(prose))).toBeUndefined();
    expect(detectFormat('letter.txt', 'text/plain', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(prose, 'utf16le')]))).toBeUndefined();
  });

  it('recognises nothing in binary data or plain text', () => {
    expect(detectFormat('image', 'application/octet-stream', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d]))).toBeUndefined();
    expect(detectFormat('notes', 'text/plain', bytes('just some words\nand more'))).toBeUndefined();
    expect(detectFormat('empty', '', Buffer.alloc(0))).toBeUndefined();
  });
});
