import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { deflateSync, gzipSync } from 'node:zlib';

/** One malformed request: what a careless client or an attacker might send. */
export interface FuzzCase {
  name: string;
  headers?: Record<string, string>;
  body?: Buffer;
}

/** What came back: a status, or why none did. */
export interface FuzzOutcome {
  status?: number;
  /** The answer's headers, and its body when it is JSON (parsed; the text when it does not parse). */
  headers?: Headers;
  body?: unknown;
  error?: string;
  ms: number;
}

const json = (value: unknown) => Buffer.from(JSON.stringify(value));
const JSON_TYPE = { 'content-type': 'application/json' };

/** `depth` objects nested in one another, as raw JSON text (JSON.stringify itself would overflow the stack). */
export function deepJson(depth: number, open = '{"a":', leaf = '1', close = '}'): string {
  return open.repeat(depth) + leaf + close.repeat(depth);
}

/** A gzip body that inflates to `bytes` of zeros (a few hundred KB on the wire for 200 MB). */
function gzipBomb(bytes: number): Buffer {
  return gzipSync(Buffer.alloc(bytes), { level: 9 });
}

let bomb: Buffer | undefined;
/** Made once: compressing 200 MB takes a moment. */
export function inflatesTo200MB(): Buffer {
  bomb ??= gzipBomb(200 * 1024 * 1024);
  return bomb;
}

/** Encoding and framing attacks that apply to any route that reads a body, whatever it expects inside. */
export function encodingCases(contentType: string): FuzzCase[] {
  const type = { 'content-type': contentType };
  return [
    { name: 'gzip body inflating to 200 MB', headers: { ...type, 'content-encoding': 'gzip' }, body: inflatesTo200MB() },
    { name: 'content-encoding deflate that is not deflate', headers: { ...type, 'content-encoding': 'deflate' }, body: randomBytes(4096) },
    { name: 'content-encoding gzip that is not gzip', headers: { ...type, 'content-encoding': 'gzip' }, body: Buffer.from('not gzip at all') },
    { name: 'truncated gzip', headers: { ...type, 'content-encoding': 'gzip' }, body: gzipSync(Buffer.from('{"name":"x"}')).subarray(0, 12) },
    { name: 'unknown content-encoding', headers: { ...type, 'content-encoding': 'zstd-9000' }, body: Buffer.from('{}') },
    { name: 'deflate of valid JSON', headers: { ...type, 'content-encoding': 'deflate' }, body: deflateSync(Buffer.from('{"name":"x"}')) },
    { name: 'unsupported charset', headers: { 'content-type': `${contentType}; charset=ebcdic-xx` }, body: Buffer.from('{}') },
    { name: 'utf-16 charset', headers: { 'content-type': `${contentType}; charset=utf-16` }, body: Buffer.from('{}', 'utf16le') },
    { name: '14 bytes of binary', headers: type, body: Buffer.from([0, 255, 254, 1, 128, 10, 13, 0x1f, 0x8b, 0, 0xc3, 0x28, 0xa0, 0xa1]) },
    { name: '200 KB of random bytes', headers: type, body: randomBytes(200 * 1024) },
    { name: 'body over every JSON limit (3 MB)', headers: type, body: Buffer.alloc(3 * 1024 * 1024, 0x20) },
  ];
}

/** Bodies for routes that take a JSON object: wrong types, deep nesting, huge values, broken text. */
export function jsonCases(): FuzzCase[] {
  const wrongTypes = {
    name: 123, collection: [], record_type: {}, collection_data: 'x', visibility: 5, status: [], description: {},
    records: 'x', record_ids: 'x', update: [], scopes: 'admin', expires_at: 'yesterday', query: 5, filters: [],
    limit: 'abc', offset: -1, format: 1, sort: {}, default_visibility: 3, group_by: 1, stats: 'x', source_id: {},
  };
  const huge = 'x'.repeat(1_500_000);
  const manyFields: Record<string, number> = {};
  for (let i = 0; i < 100_000; i++) manyFields[`f${i}`] = i;
  const record = { name: 'Fuzz bolt', collection: 'fuzz', record_type: 'part' };
  return [
    { name: 'empty body', headers: JSON_TYPE, body: Buffer.alloc(0) },
    { name: 'empty object', headers: JSON_TYPE, body: json({}) },
    { name: 'array', headers: JSON_TYPE, body: json([{}]) },
    { name: 'string', headers: JSON_TYPE, body: json('x') },
    { name: 'number', headers: JSON_TYPE, body: Buffer.from('1e400') },
    { name: 'null', headers: JSON_TYPE, body: Buffer.from('null') },
    { name: 'truncated JSON', headers: JSON_TYPE, body: Buffer.from('{"name": "x", "collection": ') },
    { name: 'single quotes', headers: JSON_TYPE, body: Buffer.from("{'name': 'x'}") },
    { name: 'trailing garbage', headers: JSON_TYPE, body: Buffer.from('{"name":"x"} trailing') },
    { name: 'wrong types everywhere', headers: JSON_TYPE, body: json(wrongTypes) },
    { name: 'records as an object', headers: JSON_TYPE, body: json({ records: { name: 'x' } }) },
    { name: 'records of wrong things', headers: JSON_TYPE, body: json({ records: [null, 1, 'x', [], { name: [] }, { name: 'ok', collection_data: [] }] }) },
    { name: 'huge string value', headers: JSON_TYPE, body: json({ ...record, name: huge, query: huge, records: [{ name: huge }] }) },
    { name: 'huge number', headers: JSON_TYPE, body: Buffer.from('{"limit": 1e309, "offset": 99999999999999999999999, "name": "x"}') },
    { name: 'object nested 100,000 deep', headers: JSON_TYPE, body: Buffer.from(deepJson(100_000)) },
    { name: 'array nested 100,000 deep', headers: JSON_TYPE, body: Buffer.from(deepJson(100_000, '[', '1', ']')) },
    {
      name: 'collection_data nested 100,000 deep',
      headers: JSON_TYPE,
      body: Buffer.from(`{"name":"x","collection":"fuzz","record_type":"part","collection_data":${deepJson(100_000)},"records":[{"name":"x","collection_data":${deepJson(50_000)}}],"filters":${deepJson(50_000)},"query":"x"}`),
    },
    { name: '100,000 collection_data fields', headers: JSON_TYPE, body: json({ ...record, collection_data: manyFields, records: [{ name: 'x', collection_data: manyFields }], filters: manyFields }) },
    { name: 'invalid UTF-8 inside a string', headers: JSON_TYPE, body: Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, 0xfe, 0xc3, 0x28]), Buffer.from('","collection":"fuzz","record_type":"part"}')]) },
    { name: 'NUL and lone surrogates', headers: JSON_TYPE, body: Buffer.from('{"name":"a\\u0000b\\ud800","collection":"fu\\u0000zz","record_type":"\\udfff","query":"\\ud800","records":[{"name":"\\u0000"}]}') },
    { name: 'prototype keys', headers: JSON_TYPE, body: Buffer.from('{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}},"name":"x","collection_data":{"__proto__":{"polluted":1}}}') },
    { name: 'JSON sent as text/plain', headers: { 'content-type': 'text/plain' }, body: json(record) },
    { name: 'XML sent as JSON', headers: JSON_TYPE, body: Buffer.from('<?xml version="1.0"?><records/>') },
    { name: 'no content-type', body: json(record) },
    { name: '10,000 record ids of junk', headers: JSON_TYPE, body: json({ record_ids: Array.from({ length: 10_000 }, (_, i) => `id-${i}`), visibility: 'public', update: { collection_data: {} } }) },
    { name: 'bad filters', headers: JSON_TYPE, body: json({ query: 'x', collection: 'fuzz', filters: { a_min: 'abc', b: { nested: 1 }, c_in: [[1]], '': 1, ['k'.repeat(10_000)]: 1 }, sort: '-'.repeat(1000), group_by: 'x'.repeat(10_000), stats: Array(1000).fill('x') }) },
    ...encodingCases('application/json'),
  ];
}

/** A multipart body with the given parts; `close: false` leaves out the closing boundary (a truncated form). */
export function multipart(parts: { name: string; filename?: string; type?: string; data: Buffer | string }[], close = true): FuzzCase['body'] {
  const boundary = 'fuzzboundary42';
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename === undefined ? '' : `; filename="${p.filename}"`}`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${p.type ? `Content-Type: ${p.type}\r\n` : ''}\r\n`));
    chunks.push(Buffer.isBuffer(p.data) ? p.data : Buffer.from(p.data));
    chunks.push(Buffer.from('\r\n'));
  }
  if (close) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

const FORM = { 'content-type': 'multipart/form-data; boundary=fuzzboundary42' };

/** A PDF whose page tree's only Kids entry is the page tree itself. */
export function selfReferencingPdf(): Buffer {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [2 0 R] /Count 1 >>',
  ];
  let body = '%PDF-1.7\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(body.length);
    body += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const off of offsets) body += `${String(off).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

/** Files for the upload routes: bad PDFs, XML, CSV, JSON and NDJSON, and broken forms. */
export function fileCases(): FuzzCase[] {
  const file = (filename: string, data: Buffer | string, type = 'application/octet-stream') => ({
    name: `file ${filename}`,
    headers: FORM,
    body: multipart([{ name: 'file', filename, type, data }]),
  });
  const wideHeader = Array.from({ length: 100_000 }, (_, i) => `c${i}`).join(',');
  return [
    file('self-referencing.pdf', selfReferencingPdf(), 'application/pdf'),
    file('random.pdf', randomBytes(64 * 1024), 'application/pdf'),
    file('header-only.pdf', '%PDF-1.7\n%%EOF\n', 'application/pdf'),
    file('truncated.pdf', selfReferencingPdf().subarray(0, 60), 'application/pdf'),
    file('deep.xml', `<?xml version="1.0"?>${'<a>'.repeat(100_000)}x${'</a>'.repeat(100_000)}`, 'application/xml'),
    file(
      'laughs.xml',
      '<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">]><records><record><name>&d;</name></record></records>',
      'application/xml',
    ),
    file('broken.xml', '<records><record><name>x</record></records', 'application/xml'),
    file('wide.csv', `${wideHeader}\n${wideHeader}\n`, 'text/csv'),
    file('quotes.csv', 'name,price\n"unterminated,1\nx,"2""\n', 'text/csv'),
    file('binary.csv', randomBytes(32 * 1024), 'text/csv'),
    file('utf16.csv', Buffer.from('\ufeffname,price\nbolt,1\n', 'utf16le'), 'text/csv'),
    file('deep.json', `[${deepJson(100_000)}]`, 'application/json'),
    file('deep.ndjson', `${deepJson(100_000)}\n{"name":"ok"}\n`, 'application/x-ndjson'),
    file('long-line.ndjson', `{"name":"${'x'.repeat(3_000_000)}"}\n`, 'application/x-ndjson'),
    file('empty.csv', '', 'text/csv'),
    file('../../../etc/passwd', 'name\nx\n', 'text/csv'),
    file(`${'n'.repeat(5000)}.csv`, 'name\nx\n', 'text/csv'),
    file('noextension', randomBytes(2048)),
    { name: 'truncated form', headers: FORM, body: multipart([{ name: 'file', filename: 'a.csv', type: 'text/csv', data: 'name\nx\n' }], false) },
    { name: 'form without a file', headers: FORM, body: multipart([{ name: 'name_column', data: 'title' }]) },
    { name: 'two files', headers: FORM, body: multipart([{ name: 'file', filename: 'a.csv', data: 'name\nx\n' }, { name: 'file', filename: 'b.csv', data: 'name\ny\n' }]) },
    { name: 'form without a boundary', headers: { 'content-type': 'multipart/form-data' }, body: Buffer.from('--x\r\n\r\n') },
    { name: 'a thousand fields', headers: FORM, body: multipart(Array.from({ length: 1000 }, (_, i) => ({ name: `f${i}`, data: 'v' }))) },
    { name: 'huge name_column', headers: FORM, body: multipart([{ name: 'name_column', data: 'c'.repeat(2_000_000) }, { name: 'file', filename: 'a.csv', data: 'name\nx\n' }]) },
    ...encodingCases(FORM['content-type']),
  ];
}

const NDJSON = { 'content-type': 'application/x-ndjson' };

/** Bodies for the NDJSON stream routes. */
export function streamCases(): FuzzCase[] {
  return [
    { name: 'deep line then a healthy one', headers: NDJSON, body: Buffer.from(`${deepJson(100_000)}\n{"name":"healthy"}\n`) },
    { name: 'line of 3 MB', headers: NDJSON, body: Buffer.from(`{"name":"${'x'.repeat(3_000_000)}"}\n`) },
    { name: 'lines of junk', headers: NDJSON, body: Buffer.from('[]\nnull\n1\n"x"\n{"name":[]}\n{broken\n\n\n') },
    { name: 'invalid UTF-8 line', headers: NDJSON, body: Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, 0xc3]), Buffer.from('"}\n')]) },
    { name: 'one line with 100,000 fields', headers: NDJSON, body: Buffer.from(`${JSON.stringify(Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`f${i}`, i])))}\n`) },
    { name: 'NUL bytes', headers: NDJSON, body: Buffer.from('{"name":"a\\u0000"}\n\u0000\u0000\n') },
    ...encodingCases(NDJSON['content-type']),
  ];
}

/** Query strings a careless client sends to list and read routes. */
export const QUERY_CASES = [
  'limit=-1', 'limit=abc', 'limit=99999999999999999999999', 'limit=1e400', 'offset=-5', 'offset=1e20', 'limit=1&limit=2',
  'cursor=garbage', 'cursor=%00', 'cursor=eyJ4IjoxfQ', 'q=' + 'x'.repeat(10_000), 'q=%ZZ', 'q=%00%01', 'status=bogus',
  'collection=../x', 'collection=' + 'c'.repeat(5000), 'record_type[]=x&collection[a]=b', 'q[]=1&q[]=2', 'tenant_id=x',
];

/** Path segments that stand where an id or a name belongs. */
export const SEGMENT_CASES = ['not-a-uuid', '00000000-0000-0000-0000-000000000000', 'x'.repeat(5000), '%00', '%ZZ', '..%2F..%2Finternal', '%C0%AE%C0%AE', '%F0%9F%92%A5'];

/** Sends one request and waits at most `timeoutMs` for the whole answer. A fresh connection each time. */
export function send(baseUrl: string, method: string, path: string, c: FuzzCase, auth: Record<string, string>, timeoutMs: number): Promise<FuzzOutcome> {
  const started = Date.now();
  return new Promise((resolve) => {
    let done = false;
    const finish = (o: Omit<FuzzOutcome, 'ms'>) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.destroy();
      resolve({ ...o, ms: Date.now() - started });
    };
    const url = new URL(baseUrl);
    const headers: Record<string, string | number> = { ...auth, ...(c.headers ?? {}), connection: 'close' };
    if (c.body) headers['content-length'] = c.body.length;
    const req = request({ host: url.hostname, port: url.port, method, path, headers, agent: false }, (res) => {
      const answered = new Headers();
      for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) answered.set(name, String(value));
      const isJson = answered.get('content-type')?.split(';')[0]?.trim() === 'application/json';
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => isJson && chunks.push(chunk));
      res.on('end', () => finish({ status: res.statusCode, headers: answered, body: isJson ? parsed(Buffer.concat(chunks).toString('utf8')) : undefined }));
      res.on('error', () => finish({ status: res.statusCode }));
    });
    const timer = setTimeout(() => finish({ error: `no answer within ${timeoutMs} ms` }), timeoutMs);
    // A server may answer (413, 415, 422) and close before it has read a large body: the answer counts.
    req.on('error', (err) => setTimeout(() => finish({ error: err.message }), 200));
    if (c.body) req.end(c.body);
    else req.end();
  });
}

function parsed(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return text;
  }
}

/** Starts a request that announces `declared` bytes, sends the first `sent` of them, and drops the connection. */
export function abandon(baseUrl: string, method: string, path: string, headers: Record<string, string>, declared: number, sent: Buffer): Promise<void> {
  return new Promise((resolve) => {
    const url = new URL(baseUrl);
    const req = request({ host: url.hostname, port: url.port, method, path, headers: { ...headers, 'content-length': declared }, agent: false });
    req.on('error', () => resolve());
    req.on('response', (res) => {
      res.resume();
      req.destroy();
      resolve();
    });
    req.write(sent, () => setTimeout(() => {
      req.destroy();
      resolve();
    }, 50));
  });
}
