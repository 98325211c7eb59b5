import { TroveClient, TroveToolError } from './index.js';
import { json, useServers } from './__tests__/server.js';

const serve = useServers();

const ID = '7d7f2a5e-1b8c-4c6e-9a57-3f1e2d4c5b6a';

/** An upload's status read, `done` or still processing. */
const status = (done: boolean) => ({
  id: ID,
  status: done ? 'complete' : 'processing',
  collection: 'c',
  record_type: 't',
  source_type: 'file_upload',
  source_name: 'a.csv',
  summary: { submitted: done ? 2 : 1, accepted: done ? 2 : 0, rejected: 0, dedup_skipped: 0 },
  progress: { records_read: done ? 2 : 1, records_total: null, bytes_read: 10, bytes_total: 10 },
  failure: null,
  errors: [],
  metadata: { processing_time_ms: done ? 5 : null, file_hash: null, reconciliation_passed: null, pipeline_backpressure: null },
  created_at: '2026-01-01T00:00:00.000Z',
  completed_at: done ? '2026-01-01T00:00:01.000Z' : null,
});

describe('asynchronous uploads', () => {
  it('asks for the asynchronous answer with respondAsync, and follows the upload, telling each status read', async () => {
    let reads = 0;
    const s = await serve((req, res) =>
      req.method === 'POST' ? json(res, 202, { upload_id: ID, status: 'processing' }, { 'Preference-Applied': 'respond-async' }) : json(res, 200, status(reads++ > 0)),
    );
    const trove = new TroveClient({ baseUrl: s.url, apiKey: 'k' });
    const accepted = await trove.uploads.file('c', 't', { file: 'name\nA\nB\n', filename: 'a.csv', respondAsync: true });
    expect(accepted).toEqual({ upload_id: ID, status: 'processing' });
    expect(s.received[0]!.headers.prefer).toBe('respond-async');

    const seen: string[] = [];
    const done = await trove.uploads.wait(ID, { intervalMs: 1, onStatus: (u) => seen.push(u.status) });
    expect(done.summary.accepted).toBe(2);
    expect(seen).toEqual(['processing', 'complete']);

    await trove.uploads.file('c', 't', { file: 'name\nA\n', filename: 'a.csv' });
    expect(s.received.at(-1)!.headers.prefer).toBeUndefined();
  });

  it("lists uploads by status, with a key or the portal's token", async () => {
    const s = await serve((_req, res) => json(res, 200, { items: [status(false)], cursor: null, has_more: false }));
    const trove = new TroveClient({ baseUrl: s.url, apiKey: 'k', portalToken: 'jwt' });
    expect((await trove.uploads.list({ status: 'processing', limit: 5 })).items[0]!.id).toBe(ID);
    await trove.portal.uploads.list();
    await trove.portal.uploads.status(ID);
    await trove.portal.uploads.errors(ID);
    expect(s.received.map((r) => [r.url, r.headers.authorization])).toEqual([
      ['/api/v1/uploads?status=processing&limit=5', 'Bearer k'],
      ['/api/v1/portal/uploads', 'Bearer jwt'],
      [`/api/v1/portal/uploads/${ID}`, 'Bearer jwt'],
      [`/api/v1/portal/uploads/${ID}/errors`, 'Bearer jwt'],
    ]);
  });
});

describe('blue-green replace', () => {
  it('stages a file with its record type in the query, follows indexing until ready, then swaps or cancels', async () => {
    const phases = ['indexing', 'ready'];
    const s = await serve((req, res) => {
      if (req.url.startsWith('/api/v1/portal/collections/bolts/replace?')) {
        return json(res, 202, { upload_id: ID, status: 'processing', staging: { generation: 2, status: 'staging', collection: 'bolts' } });
      }
      if (req.url.endsWith('/replace-status')) {
        const phase = phases.shift() ?? 'ready';
        return json(res, 200, {
          has_pending_replace: true,
          staging_generation: 2,
          staging_status: 'staging',
          phase,
          total: 2,
          indexed: phase === 'ready' ? 2 : 1,
          pending: phase === 'ready' ? 0 : 1,
          processing: 0,
          failed: 0,
          ready_to_swap: phase === 'ready',
        });
      }
      if (req.url.endsWith('/swap')) return json(res, 200, { collection: 'bolts', old_generation: 1, new_generation: 2, old_record_count: 3, new_record_count: 2, deleted: 3 });
      if (req.url.endsWith('/cancel-replace')) return json(res, 200, { collection: 'bolts', cancelled_generation: 2, records_archived: 2 });
      if (req.method === 'DELETE') return json(res, 200, { collection: 'bolts', records_archived: 2 });
      json(res, 404, { detail: 'Not Found' });
    });
    const trove = new TroveClient({ baseUrl: s.url, portalToken: 'jwt' });
    const staged = await trove.portal.replace.upload('bolts', { recordType: 'product', name_column: 'title' }, { file: 'title\nA\n', filename: 'new.csv', respondAsync: true });
    expect(staged).toMatchObject({ upload_id: ID, staging: { generation: 2 } });
    expect(s.received[0]!.url).toBe('/api/v1/portal/collections/bolts/replace?record_type=product&name_column=title');
    expect(s.received[0]!.headers.prefer).toBe('respond-async');

    const indexed: (number | null)[] = [];
    const ready = await trove.portal.replace.wait('bolts', { intervalMs: 1, onStatus: (r) => indexed.push(r.indexed) });
    expect(ready.ready_to_swap).toBe(true);
    expect(indexed).toEqual([1, 2]);
    expect((await trove.portal.replace.swap('bolts')).new_generation).toBe(2);
    expect((await trove.portal.replace.cancel('bolts')).records_archived).toBe(2);
    expect((await trove.portal.deleteCollection('bolts')).records_archived).toBe(2);
    expect(s.received.every((r) => r.headers.authorization === 'Bearer jwt')).toBe(true);
  });

  it('stops waiting when indexing ended with failures, as the replace will never be ready', async () => {
    const s = await serve((_req, res) =>
      json(res, 200, { has_pending_replace: true, staging_generation: 2, staging_status: 'staging', phase: 'completed_with_errors', total: 2, indexed: 1, pending: 0, processing: 0, failed: 1, ready_to_swap: false }),
    );
    const trove = new TroveClient({ baseUrl: s.url, portalToken: 'jwt' });
    expect((await trove.portal.replace.wait('bolts', { intervalMs: 1 })).failed).toBe(1);
    expect(s.received).toHaveLength(1);
  });
});

describe('exports, MCP tools and the Open API', () => {
  it("streams an export's file as it arrives, bytes unchanged", async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/csv; charset=utf-8' });
      res.end('id,name\nr1,Bolt ü\n');
    });
    const trove = new TroveClient({ baseUrl: s.url, apiKey: 'k' });
    const stream = await trove.exports.downloadStream('5f0c7a8e-2d4b-4c1a-9e3f-6b7a8c9d0e1f');
    expect(Buffer.from(await new Response(stream).arrayBuffer()).toString('utf8')).toBe('id,name\nr1,Bolt ü\n');
    expect(s.received[0]!.url).toBe('/api/v1/export/5f0c7a8e-2d4b-4c1a-9e3f-6b7a8c9d0e1f/download');
  });

  it('calls an MCP tool in one request, reading its answer from the event stream; a JSON-RPC error throws', async () => {
    const s = await serve((req, res) => {
      const call = JSON.parse(req.body.toString()) as { id: number; params: { name: string } };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const message =
        call.params.name === 'trove_schema'
          ? { jsonrpc: '2.0', id: call.id, result: { content: [{ type: 'text', text: 'Fields: size (integer)' }] } }
          : { jsonrpc: '2.0', id: call.id, error: { code: -32602, message: 'Tool nope not found' } };
      res.end(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
    });
    const trove = new TroveClient({ baseUrl: s.url, apiKey: 'k' });
    expect(await trove.mcp.callTool('trove_schema', { collection: 'bolts' })).toEqual({ content: [{ type: 'text', text: 'Fields: size (integer)' }] });
    const req = s.received[0]!;
    expect(req.url).toBe('/mcp');
    expect(req.headers.accept).toBe('application/json, text/event-stream');
    expect(JSON.parse(req.body.toString())).toEqual({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'trove_schema', arguments: { collection: 'bolts' } } });
    const refused = trove.mcp.callTool('nope', {});
    await expect(refused).rejects.toThrow(TroveToolError);
    await expect(refused).rejects.toMatchObject({ tool: 'nope', code: -32602, message: 'nope: Tool nope not found' });
  });

  it("reads a public collection's schema without a credential", async () => {
    const s = await serve((_req, res) => json(res, 200, { collection: 'bolts', record_types: ['product'], record_count: 2, description: 'Bolts', filterable_fields: ['size (integer): 8, 10'] }));
    const trove = new TroveClient({ baseUrl: s.url, apiKey: 'k' });
    expect((await trove.open.schema('bolts')).filterable_fields).toEqual(['size (integer): 8, 10']);
    expect(s.received[0]!.url).toBe('/open/v1/collections/bolts/schema');
    expect(s.received[0]!.headers.authorization).toBeUndefined();
  });
});
