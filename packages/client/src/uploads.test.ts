import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TroveClient, type Progress } from './index.js';
import { json, useServers, type Received } from './__tests__/server.js';

const serve = useServers();

const UPLOADED = {
  upload_id: '7d7f2a5e-1b8c-4c6e-9a57-3f1e2d4c5b6a',
  status: 'complete',
  summary: { submitted: 2, accepted: 2, rejected: 0, dedup_skipped: 0 },
  errors: [],
  metadata: {},
};

/** The parts of a multipart/form-data body: each part's headers and content. */
function partsOf(req: Received): { name: string; filename?: string; type?: string; content: string }[] {
  const boundary = /boundary=(.+)$/.exec(req.headers['content-type'] ?? '')?.[1];
  if (!boundary) throw new Error(`not multipart: ${req.headers['content-type']}`);
  const text = req.body.toString('latin1');
  return text
    .split(`--${boundary}`)
    .slice(1, -1)
    .map((raw) => {
      const [head, ...rest] = raw.slice(2, -2).split('\r\n\r\n');
      const disposition = /name="([^"]*)"(?:; filename="([^"]*)")?/.exec(head!)!;
      const type = /content-type: (.+)/i.exec(head!)?.[1];
      return { name: disposition[1]!, ...(disposition[2] !== undefined && { filename: disposition[2] }), ...(type && { type }), content: rest.join('\r\n\r\n') };
    });
}

describe('file uploads', () => {
  it('sends the form fields, then the file, with a Content-Length, reporting progress as the body is read', async () => {
    const s = await serve((_req, res) => json(res, 201, UPLOADED));
    const trove = new TroveClient({ baseUrl: s.url, apiKey: 'k' });
    const csv = `title;ean\n${Array.from({ length: 20_000 }, (_, i) => `Nut ${i};${4006381333931 + i}`).join('\n')}\n`;
    const progress: Progress[] = [];
    const answer = await trove.uploads.file('nuts', 'product', {
      file: new Blob([csv], { type: 'text/csv' }),
      filename: 'nuts "M8".csv',
      fields: { name_column: 'title' },
      onProgress: (p) => progress.push(p),
    });
    expect(answer).toEqual(UPLOADED);
    const [req] = s.received;
    expect(req!.url).toBe('/api/v1/upload/nuts/product/upload');
    expect(req!.headers.authorization).toBe('Bearer k');
    expect(Number(req!.headers['content-length'])).toBe(req!.body.byteLength);
    expect(partsOf(req!)).toEqual([
      { name: 'name_column', content: 'title' },
      { name: 'file', filename: 'nuts %22M8%22.csv', type: 'text/csv', content: csv },
    ]);
    const total = req!.body.byteLength;
    expect(progress.length).toBeGreaterThan(3);
    expect(progress.every((p) => p.total === total)).toBe(true);
    expect(progress.map((p) => p.loaded)).toEqual([...progress.map((p) => p.loaded)].sort((a, b) => a - b));
    expect(progress.at(-1)!.loaded).toBe(total);
  });

  it('takes bytes or text with a file name, typing the part from its extension', async () => {
    const s = await serve((_req, res) => json(res, 201, UPLOADED));
    const trove = new TroveClient({ baseUrl: s.url });
    await trove.uploads.file('c', 't', { file: new TextEncoder().encode('[{"name":"a"}]'), filename: 'a.json' });
    await trove.uploads.file('c', 't', { file: '<items><item><name>a</name></item></items>', filename: 'feed.xml', fields: { record_tag: 'item' } });
    expect(partsOf(s.received[0]!)).toEqual([{ name: 'file', filename: 'a.json', type: 'application/json', content: '[{"name":"a"}]' }]);
    expect(partsOf(s.received[1]!)).toEqual([
      { name: 'record_tag', content: 'item' },
      { name: 'file', filename: 'feed.xml', type: 'application/xml', content: '<items><item><name>a</name></item></items>' },
    ]);
    await expect(trove.uploads.file('c', 't', { file: 'x' })).rejects.toThrow(/filename/);
  });

  it('sends the whole file again after a 429, progress starting over', async () => {
    let n = 0;
    const s = await serve((_req, res) => (n++ === 0 ? json(res, 429, { detail: 'Too many' }, { 'Retry-After': '0' }) : json(res, 201, UPLOADED)));
    const trove = new TroveClient({ baseUrl: s.url });
    const loaded: number[] = [];
    await trove.uploads.file('c', 't', { file: 'name\nA\nB\n', filename: 'a.csv', onProgress: (p) => loaded.push(p.loaded) });
    expect(s.received).toHaveLength(2);
    expect(s.received[1]!.body.equals(s.received[0]!.body)).toBe(true);
    expect(loaded.filter((l) => l === 0)).toHaveLength(2);
  });

  it('reaches any multipart operation by path, such as the portal upload', async () => {
    const s = await serve((_req, res) => json(res, 201, UPLOADED));
    const trove = new TroveClient({ baseUrl: s.url, apiKey: 'key', portalToken: 'token' });
    await trove.uploadFile('/api/v1/portal/upload/{collection}/{record_type}/upload', {
      params: { path: { collection: 'shelves', record_type: 'product' } },
      file: 'name\nShelf\n',
      filename: 'shelves.csv',
    });
    expect(s.received[0]).toMatchObject({ url: '/api/v1/portal/upload/shelves/product/upload', headers: { authorization: 'Bearer token' } });
  });
});

describe('file uploads where fetch cannot stream a body (browsers)', () => {
  /** A stand-in for a browser's XMLHttpRequest, sending over node:http and reporting upload progress as a browser does. */
  class NodeXhr {
    upload: { onprogress: ((e: { loaded: number; total: number; lengthComputable: boolean }) => void) | null } = { onprogress: null };
    onload: (() => void) | null = null;
    onerror: (() => void) | null = null;
    onabort: (() => void) | null = null;
    ontimeout: (() => void) | null = null;
    responseType = '';
    response: unknown = null;
    status = 0;
    statusText = '';
    private target = { method: 'GET', url: '' };
    private headers: Record<string, string> = {};
    private responseHeaders = '';
    open(method: string, url: string) {
      this.target = { method, url };
    }
    setRequestHeader(name: string, value: string) {
      this.headers[name] = value;
    }
    getAllResponseHeaders() {
      return this.responseHeaders;
    }
    abort() {
      this.onabort?.();
    }
    send(body: Blob | null) {
      void (async () => {
        const bytes = body ? Buffer.from(await body.arrayBuffer()) : Buffer.alloc(0);
        const req = request(this.target.url, { method: this.target.method, headers: { ...this.headers, 'content-length': bytes.byteLength } }, async (res) => {
          const chunks: Buffer[] = [];
          for await (const chunk of res) chunks.push(chunk as Buffer);
          this.status = res.statusCode!;
          this.statusText = res.statusMessage ?? '';
          this.responseHeaders = Object.entries(res.headers)
            .map(([k, v]) => `${k}: ${String(v)}`)
            .join('\r\n');
          this.response = new Blob([Buffer.concat(chunks)]);
          this.onload?.();
        });
        req.on('error', () => this.onerror?.());
        const third = Math.ceil(bytes.byteLength / 3);
        for (let at = 0; at < bytes.byteLength; at += third) {
          req.write(bytes.subarray(at, at + third));
          this.upload.onprogress?.({ loaded: Math.min(at + third, bytes.byteLength), total: bytes.byteLength, lengthComputable: true });
        }
        req.end();
      })();
    }
  }

  beforeEach(() => {
    (globalThis as { XMLHttpRequest?: unknown }).XMLHttpRequest = NodeXhr;
  });
  afterEach(() => {
    delete (globalThis as { XMLHttpRequest?: unknown }).XMLHttpRequest;
  });

  it('sends a FormData through XMLHttpRequest and passes its upload progress on', async () => {
    const s = await serve((_req, res) => json(res, 201, UPLOADED, { 'X-Request-Id': 'r1' }));
    const trove = new TroveClient({ baseUrl: s.url, apiKey: 'k', streamingRequests: false });
    const progress: Progress[] = [];
    const answer = await trove.uploads.file('c', 'product', { file: 'name,ean\nA,1\n', filename: 'a.csv', fields: { name_column: 'name' }, onProgress: (p) => progress.push(p) });
    expect(answer).toEqual(UPLOADED);
    const [req] = s.received;
    expect(req!.headers.authorization).toBe('Bearer k');
    expect(partsOf(req!)).toEqual([
      { name: 'name_column', content: 'name' },
      { name: 'file', filename: 'a.csv', type: 'text/csv', content: 'name,ean\nA,1\n' },
    ]);
    expect(progress.length).toBeGreaterThanOrEqual(3);
    expect(progress.at(-1)).toEqual({ loaded: req!.body.byteLength, total: req!.body.byteLength });
  });

  it('answers a refusal sent through XMLHttpRequest as a TroveError', async () => {
    const s = await serve((_req, res) => json(res, 415, { detail: 'Unsupported file type' }, { 'X-Request-Id': 'r2' }));
    const trove = new TroveClient({ baseUrl: s.url, streamingRequests: false });
    await expect(trove.uploads.file('c', 't', { file: 'x', filename: 'a.bin', onProgress: () => undefined })).rejects.toMatchObject({
      status: 415,
      detail: 'Unsupported file type',
      requestId: 'r2',
    });
  });
});

describe('NDJSON streams', () => {
  const streamAnswer = (req: Received, extra: Record<string, unknown> = {}) => {
    const lines = req.body.toString().split('\n').filter(Boolean);
    return { accepted: lines.length, parse_errors: 0, buffer_size: lines.length, flushed: false, ...extra };
  };

  it('sends records while the source is still producing them', async () => {
    let firstBytes!: () => void;
    const arrived = new Promise<void>((resolve) => (firstBytes = resolve));
    const bodies: string[] = [];
    const server: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => {
        body += d.toString();
        firstBytes();
      });
      req.on('end', () => {
        bodies.push(body);
        res.writeHead(200, { 'content-type': 'application/json', 'X-Upload-Id': 'u-1' });
        res.end(JSON.stringify({ accepted: 3, parse_errors: 0, buffer_size: 0, flushed: true }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const trove = new TroveClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: 'k' });
      async function* records() {
        yield { name: 'Bolt 1', source_id: '1' };
        // The rest comes only once the server has the first: a client gathering the body first would never send it.
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('the first record was not sent before the source ended')), 5_000)));
        await Promise.race([arrived, late]).finally(() => clearTimeout(timer));
        yield { name: 'Bolt 2', source_id: '2' };
        yield { name: 'Bolt 3', source_id: '3' };
      }
      const summary = await trove.uploads.stream('bolts', 'product', records());
      expect(summary).toEqual({ requests: 1, accepted: 3, parse_errors: 0, buffer_size: 0, upload_ids: ['u-1'] });
      expect(bodies).toEqual(['{"name":"Bolt 1","source_id":"1"}\n{"name":"Bolt 2","source_id":"2"}\n{"name":"Bolt 3","source_id":"3"}\n']);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('splits a long source into requests, each sent again whole after a 429 from a full buffer', async () => {
    let n = 0;
    const s = await serve((req, res) => {
      n++;
      if (n === 2) return json(res, 429, { detail: 'The stream buffer is full' }, { 'Retry-After': '0' });
      json(res, 200, streamAnswer(req, n === 4 ? { flushed: true } : {}), n === 4 ? { 'X-Upload-Id': 'u-4' } : {});
    });
    const trove = new TroveClient({ baseUrl: s.url, apiKey: 'k' });
    let closed = false;
    async function* records() {
      try {
        for (let i = 0; i < 2_500; i++) yield { name: `Washer ${i}` };
      } finally {
        closed = true;
      }
    }
    const summary = await trove.uploads.stream('washers', 'product', records(), { recordsPerRequest: 1_000 });
    expect(summary).toEqual({ requests: 3, accepted: 2_500, parse_errors: 0, buffer_size: 500, upload_ids: ['u-4'] });
    expect(s.received.map((r) => [r.url, r.headers['content-type'], r.body.toString().split('\n').filter(Boolean).length])).toEqual([
      ['/api/v1/upload/washers/product/stream', 'application/x-ndjson', 1_000],
      ['/api/v1/upload/washers/product/stream', 'application/x-ndjson', 1_000],
      ['/api/v1/upload/washers/product/stream', 'application/x-ndjson', 1_000],
      ['/api/v1/upload/washers/product/stream', 'application/x-ndjson', 500],
    ]);
    expect(s.received[2]!.body.equals(s.received[1]!.body)).toBe(true);
    expect(JSON.parse(s.received[3]!.body.toString().split('\n')[0]!)).toEqual({ name: 'Washer 2000' });
    expect(closed).toBe(true);
  });

  it('gathers each request before sending it where fetch cannot stream a body, and stops reading the source on a refusal', async () => {
    const s = await serve((req, res) => (req.body.includes('poison') ? json(res, 413, { detail: 'Too large' }) : json(res, 200, streamAnswer(req))));
    const trove = new TroveClient({ baseUrl: s.url, streamingRequests: false });
    expect(await trove.uploads.stream('c', 't', [{ name: 'a' }, { name: 'b' }, { name: 'c' }], { recordsPerRequest: 2 })).toMatchObject({ requests: 2, accepted: 3 });
    expect(s.received.map((r) => r.headers['content-length'])).toEqual([String('{"name":"a"}\n{"name":"b"}\n'.length), String('{"name":"c"}\n'.length)]);

    let read = 0;
    function* records() {
      for (;;) {
        read++;
        yield read === 3 ? { name: 'poison' } : { name: `r${read}` };
      }
    }
    await expect(trove.uploads.stream('c', 't', records(), { recordsPerRequest: 3 })).rejects.toMatchObject({ status: 413 });
    expect(read).toBe(3);
  });
});
