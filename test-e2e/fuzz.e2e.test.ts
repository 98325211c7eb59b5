import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { QUERY_CASES, SEGMENT_CASES, abandon, fileCases, jsonCases, send, streamCases, type FuzzCase, type FuzzOutcome } from './support/fuzz';
import { nonConformance } from './support/conformance';
import { signUp } from './support/portal';
import { bearer, useTrove } from './support/system';

/**
 * Malformed requests to every endpoint, sent through the gateway as a careless client or an attacker would: none may
 * answer 5xx or leave the client waiting over 5 s, and afterwards the system must be healthy, still answer correctly and
 * hold no more memory than its ceiling (docs/api/limits.md).
 */
jest.setTimeout(900_000);

/** A request answered later than this counts as a hang. */
const HANG_MS = 5_000;
/** The documented ceiling of the `--target=all` process's resident memory (docs/api/limits.md). */
const MEMORY_CEILING_MB = 1024;
const IN_FLIGHT = 4;

const trove = useTrove({
  // One process: its resident memory is checked against the documented ceiling.
  apart: false,
  // The Open API's per-IP limits would turn most of its cases into 429s before they reach the code under test.
  env: { OPEN_SEARCH_LIMIT_PER_MINUTE: '1000000', OPEN_LOOKUP_LIMIT_PER_MINUTE: '1000000', UPLOAD_MAX_BYTES: String(8 * 1024 * 1024) },
});
const api = trove.api;
let key: string;
/** A portal sign-in token, for the /api/v1/portal routes (which refuse API keys). */
let token: string;
let recordId: string;
/** A record of the portal account's own tenant. */
let portalRecordId: string;
let uploadId: string;

function residentMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

beforeAll(async () => {
  key = await trove.keyFor(randomUUID(), ['admin']);
  const record = await api('POST', '/api/v1/records', {
    headers: bearer(key),
    body: { name: 'M8 hex bolt', collection: 'fuzz', record_type: 'part', visibility: 'public', collection_data: { standard: 'DIN 933' } },
  });
  recordId = record.body.id;
  const upload = await api('POST', '/api/v1/upload/fuzz/part/batch', { headers: bearer(key), body: { records: [{ name: 'M10 nut' }] } });
  uploadId = upload.body.upload_id;
  token = (await signUp(api)).token;
  const portalKey = await api('POST', '/api/v1/portal/keys', { headers: bearer(token), body: { name: 'fuzz', scopes: ['records'] } });
  const portalRecord = await api('POST', '/api/v1/records', {
    headers: bearer(portalKey.body.key),
    body: { name: 'M6 washer', collection: 'fuzz', record_type: 'part', collection_data: { standard: 'DIN 125' } },
  });
  expect(portalRecord.status).toBe(201);
  portalRecordId = portalRecord.body.id;
});

interface Target {
  method: string;
  path: () => string;
  cases: () => FuzzCase[];
}

/** Which credential a request carries: the portal token on /api/v1/portal routes, else the admin key. */
const credentialOf = (path: string) => bearer(path.startsWith('/api/v1/portal/') ? token : key);

const body = (method: string, path: () => string): Target => ({ method, path, cases: jsonCases });
const files = (path: string): Target => ({ method: 'POST', path: () => path, cases: fileCases });
const stream = (path: string): Target => ({ method: 'POST', path: () => path, cases: streamCases });
const MCP_ACCEPT = { accept: 'application/json, text/event-stream' };

/** Every endpoint that takes a body, with the corpus its kind of body gets. */
function bodyTargets(): Target[] {
  return [
    body('POST', () => '/api/v1/auth/keys'),
    body('POST', () => '/api/v1/records'),
    body('PATCH', () => `/api/v1/records/${recordId}`),
    body('PATCH', () => '/api/v1/records/bulk'),
    body('POST', () => '/api/v1/records/bulk-delete'),
    body('PATCH', () => `/api/v1/records/${recordId}/visibility`),
    body('POST', () => '/api/v1/records/bulk-visibility'),
    body('POST', () => '/api/v1/records/retry-reset'),
    body('PATCH', () => '/api/v1/collections/fuzz/default-visibility'),
    body('POST', () => '/api/v1/admin/reindex/fuzz'),
    body('POST', () => `/api/v1/admin/reindex/record/${recordId}`),
    body('POST', () => '/api/v1/connectors'),
    body('POST', () => '/api/v1/export?collection=fuzz'),
    body('POST', () => '/api/v1/upload/fuzz/part/batch'),
    body('POST', () => '/api/v1/ingest/fuzz/part/batch'),
    body('POST', () => '/api/v1/webhooks/upload/fuzz/part'),
    body('POST', () => '/api/v1/webhooks/ingest/fuzz/part'),
    body('POST', () => `/api/v1/pipeline/trigger/${uploadId}`),
    body('POST', () => '/api/v1/search/fuzz'),
    body('POST', () => '/api/v1/aggregate'),
    body('POST', () => '/open/v1/search'),
    body('POST', () => '/open/v1/aggregate'),
    body('POST', () => '/api/v1/portal/auth/signup'),
    body('POST', () => '/api/v1/portal/auth/login'),
    body('PATCH', () => '/api/v1/portal/account'),
    body('POST', () => '/api/v1/portal/keys'),
    body('PATCH', () => `/api/v1/portal/records/${portalRecordId}`),
    body('PATCH', () => `/api/v1/portal/records/${portalRecordId}/visibility`),
    body('PATCH', () => '/api/v1/portal/collections/fuzz/default-visibility'),
    body('POST', () => '/api/v1/portal/collections/fuzz/swap'),
    body('POST', () => '/api/v1/portal/search/fuzz'),
    files('/api/v1/portal/upload/fuzz/part/upload'),
    files('/api/v1/portal/collections/fuzz/replace?record_type=part'),
    files('/api/v1/upload/fuzz/part/upload'),
    files('/api/v1/upload/fuzz/part/pdf'),
    files('/api/v1/ingest/fuzz/part/upload'),
    files('/api/v1/ingest/fuzz/part/pdf'),
    stream('/api/v1/upload/fuzz/part/stream'),
    stream('/api/v1/ingest/fuzz/part/stream'),
    { method: 'POST', path: () => '/mcp/', cases: () => jsonCases().map((c) => ({ ...c, headers: { ...MCP_ACCEPT, ...(c.headers ?? {}) } })) },
    { method: 'POST', path: () => '/mcp/', cases: mcpCases },
  ];
}

/** JSON-RPC that is well-formed JSON but wrong in every other way. */
function mcpCases(): FuzzCase[] {
  const rpc = (message: unknown): FuzzCase => ({
    name: `mcp ${JSON.stringify(message).slice(0, 60)}`,
    headers: { 'content-type': 'application/json', ...MCP_ACCEPT },
    body: Buffer.from(JSON.stringify(message)),
  });
  const call = (name: string, args: unknown) => rpc({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });
  const tools = ['trove_collections', 'trove_schema', 'trove_search', 'trove_aggregate', 'trove_list', 'trove_lookup'];
  const junkArgs: unknown[] = [
    null, 'x', [], { collection: 5, query: {}, filters: 'x', limit: -1, record_id: 'nope', record_type: [] },
    { collection: 'fuzz', query: 'x'.repeat(100_000), filters: { a_min: 'x', b: { c: 1 } }, limit: 1e9, cursor: '%%%' },
    { collection: 'c'.repeat(10_000), record_id: '00000000-0000-0000-0000-000000000000', group_by: 'x'.repeat(5000), stats: Array(500).fill('x') },
  ];
  return [
    rpc({}),
    rpc({ jsonrpc: '1.0', method: 5 }),
    rpc({ jsonrpc: '2.0', id: 1, method: 'no/such/method' }),
    rpc({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'record://not-a-uuid' } }),
    rpc({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: `schema://${'x'.repeat(5000)}/y` } }),
    rpc({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'file:///etc/passwd' } }),
    rpc(Array.from({ length: 500 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'tools/list' }))),
    call('no_such_tool', {}),
    ...tools.flatMap((t) => junkArgs.map((a) => call(t, a))),
  ];
}

/** Read routes: junk in the query string, and junk where an id or name belongs. */
function readTargets(): { method: string; path: string }[] {
  const withQueries = (path: string) => QUERY_CASES.map((q) => ({ method: 'GET', path: `${path}?${q}` }));
  const withSegments = (make: (s: string) => string, method = 'GET') => SEGMENT_CASES.map((s) => ({ method, path: make(s) }));
  return [
    ...withQueries('/api/v1/records'),
    ...withQueries('/api/v1/search/fuzz'),
    ...withQueries('/api/v1/auth/keys'),
    ...withQueries('/open/v1/search'),
    ...withQueries('/open/v1/collections'),
    ...withQueries('/open/v1/collections/fuzz/schema'),
    ...withQueries('/api/v1/health/search'),
    ...withQueries('/api/v1/admin/stats'),
    ...withQueries('/api/v1/admin/tenants'),
    ...withQueries('/api/v1/connectors'),
    ...withQueries('/api/v1/export/active'),
    ...withQueries('/api/v1/usage'),
    ...QUERY_CASES.map((q) => ({ method: 'POST', path: `/api/v1/export?${q}` })),
    ...withQueries('/api/v1/portal/records'),
    ...withQueries('/api/v1/portal/collections'),
    ...withQueries('/api/v1/portal/usage'),
    ...withQueries('/api/v1/portal/analytics'),
    ...withQueries('/api/v1/portal/quickstart'),
    ...withSegments((s) => `/api/v1/portal/records/${s}`),
    ...withSegments((s) => `/api/v1/portal/records/${s}`, 'DELETE'),
    ...withSegments((s) => `/api/v1/portal/entities/${s}`),
    ...withSegments((s) => `/api/v1/portal/keys/${s}/rotate`, 'POST'),
    ...withSegments((s) => `/api/v1/portal/collections/${s}`, 'DELETE'),
    ...withSegments((s) => `/api/v1/portal/collections/${s}/replace-status`),
    ...withSegments((s) => `/api/v1/portal/collections/${s}/cancel-replace`, 'POST'),
    ...withSegments((s) => `/api/v1/portal/collections/${s}/replace?record_type=part`, 'POST'),
    ...withSegments((s) => `/api/v1/records/${s}`),
    ...withSegments((s) => `/api/v1/records/${s}`, 'DELETE'),
    ...withSegments((s) => `/api/v1/uploads/${s}`),
    ...withSegments((s) => `/api/v1/uploads/${s}/errors`),
    ...withSegments((s) => `/api/v1/ingestions/${s}`),
    ...withSegments((s) => `/api/v1/pipeline/status/${s}`),
    ...withSegments((s) => `/api/v1/auth/keys/${s}`, 'DELETE'),
    ...withSegments((s) => `/api/v1/connectors/${s}/pull`, 'POST'),
    ...withSegments((s) => `/api/v1/connectors/${s}`, 'DELETE'),
    ...withSegments((s) => `/api/v1/export/${s}/status`),
    ...withSegments((s) => `/api/v1/export/${s}/download`),
    ...withSegments((s) => `/api/v1/export?collection=${s}`, 'POST'),
    ...withSegments((s) => `/api/v1/auth/keys/${s}/rotate`, 'POST'),
    ...withSegments((s) => `/api/v1/search/${s}?q=bolt`),
    ...withSegments((s) => `/open/v1/records/${s}`),
    ...withSegments((s) => `/open/v1/collections/${s}/schema`),
    ...withSegments((s) => `/api/v1/upload/${s}/part/batch`, 'POST'),
    { method: 'GET', path: '/mcp/' },
    { method: 'DELETE', path: '/mcp/' },
    { method: 'TRACE', path: '/api/v1/records' },
    { method: 'OPTIONS', path: '/api/v1/records' },
    { method: 'GET', path: `/api/v1/${'a/'.repeat(2000)}` },
  ];
}

/**
 * Sends every request, IN_FLIGHT at a time, and returns the ones answered 5xx, not answered in time, or answered in a
 * way the API reference does not describe.
 */
async function runAll(requests: { method: string; path: string; c: FuzzCase }[]): Promise<string[]> {
  const failures: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      const { method, path, c } = requests[next++];
      const outcome: FuzzOutcome = await send(trove.baseUrl, method, path, c, credentialOf(path), HANG_MS + 1_000);
      const label = `${method} ${path.slice(0, 80)} [${c.name}]`;
      if (outcome.status === undefined) failures.push(`${label}: ${outcome.error}`);
      else if (outcome.status >= 500) failures.push(`${label}: ${outcome.status}`);
      else if (outcome.ms > HANG_MS) failures.push(`${label}: answered ${outcome.status} after ${outcome.ms} ms`);
      else {
        // A refusal must be one the API reference lists for the operation, with the body and headers it describes.
        const problem = nonConformance({ method, url: path, status: outcome.status, headers: outcome.headers ?? new Headers(), body: outcome.body });
        if (problem) failures.push(`${label}: ${problem}`);
      }
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return failures;
}

describe('malformed requests to every endpoint', () => {
  it('are all answered within 5 s with a 4xx (or a success) the API reference describes', async () => {
    const requests = [
      ...bodyTargets().flatMap((t) => t.cases().map((c) => ({ method: t.method, path: t.path(), c }))),
      ...readTargets().map((r) => ({ ...r, c: { name: 'no body' } })),
    ];
    // The memory ceiling of docs/api/limits.md is stated for a run of this size.
    expect(requests.length).toBeGreaterThan(1_000);
    const failures = await runAll(requests);
    expect(failures).toEqual([]);
  });

  it('survive clients that drop the connection half-way through a body', async () => {
    const form = { 'content-type': 'multipart/form-data; boundary=fuzzboundary42', ...bearer(key) };
    const partial = Buffer.from('--fuzzboundary42\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\nname\nbolt\n');
    const cut = [
      ...['upload', 'pdf'].map((e) => abandon(trove.baseUrl, 'POST', `/api/v1/upload/fuzz/part/${e}`, form, 1_000_000, partial)),
      abandon(trove.baseUrl, 'POST', '/api/v1/upload/fuzz/part/stream', { 'content-type': 'application/x-ndjson', ...bearer(key) }, 1_000_000, Buffer.from('{"name":"half"}\n{"na')),
      abandon(trove.baseUrl, 'POST', '/api/v1/upload/fuzz/part/batch', { 'content-type': 'application/json', ...bearer(key) }, 1_000_000, Buffer.from('{"records":[{"name":"x"}')),
      abandon(trove.baseUrl, 'POST', '/api/v1/records', { 'content-type': 'application/json', ...bearer(key) }, 1_000, Buffer.from('{"name":')),
      abandon(trove.baseUrl, 'POST', '/mcp/', { 'content-type': 'application/json', ...MCP_ACCEPT, ...bearer(key) }, 1_000, Buffer.from('{"jsonrpc":')),
    ];
    await Promise.all(cut);
    const after = await send(trove.baseUrl, 'POST', '/api/v1/upload/fuzz/part/batch', { name: 'valid', headers: { 'content-type': 'application/json' }, body: Buffer.from('{"records":[{"name":"After the cut"}]}') }, bearer(key), HANG_MS);
    expect(after).toMatchObject({ status: 201 });
  });

  it('leave the system healthy, answering correctly and within its memory ceiling', async () => {
    expect((await api('GET', '/health/ready')).status).toBe(200);
    const created = await api('POST', '/api/v1/records', {
      headers: bearer(key),
      body: { name: 'Fuzz survivor washer', collection: 'fuzz-after', record_type: 'part' },
    });
    expect(created.status).toBe(201);
    const found = await api('POST', '/api/v1/search/fuzz-after', { headers: bearer(key), body: { query: 'survivor washer' } });
    expect(found.body.results.map((r: { record_id: string }) => r.record_id)).toEqual([created.body.id]);
    expect(residentMb(trove.pid)).toBeLessThan(MEMORY_CEILING_MB);
    const unexpected = trove.output().split('\n').filter((line) => /uncaught exception|unhandled rejection|unhandled error|flush failed/.test(line));
    expect(unexpected.map((line) => line.slice(0, 400))).toEqual([]);
  });
});
