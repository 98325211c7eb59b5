import { randomUUID } from 'node:crypto';
import { portalAuth, signUp } from './support/portal';
import { bearer, useTrove } from './support/system';

jest.setTimeout(180_000);

/**
 * The asynchronous answer of an upload (`Prefer: respond-async`, RFC 7240; docs/behaviour/ingestion.md "Asynchronous
 * uploads") through the gateway: 202 with the upload's id and Preference-Applied once the body has arrived, its counts
 * and progress growing in GET /uploads/{id} and the upload listed among the running ones while it is written, then the
 * outcome a synchronous upload of the same bytes answers. Every answer is checked against the API reference
 * (support/conformance.ts), the 202 and its header included.
 */
const trove = useTrove();
const api = trove.api;
let key: string;

beforeAll(async () => {
  key = await trove.keyFor(randomUUID(), ['admin']);
});

interface Status {
  id: string;
  status: 'processing' | 'complete' | 'failed';
  summary: { submitted: number; accepted: number; rejected: number; dedup_skipped: number };
  progress: { records_read: number; records_total: number | null; bytes_read: number | null; bytes_total: number | null };
  errors: unknown[];
  metadata: { file_hash: string | null; reconciliation_passed: boolean | null };
}

/** A CSV of `n` products, every 1,000th without a name (a dead letter). */
function csv(n: number): Buffer {
  const rows = Array.from({ length: n }, (_, i) => `${i % 1000 === 999 ? '' : `Hex bolt M${i}`},${(i % 97) / 4},SKU-${i},${'steel zinc plated DIN 933 '.repeat(2)}`);
  return Buffer.from(`name,price,sku,description\n${rows.join('\n')}\n`);
}

/** NDJSON of `n` events, every 1,000th line not JSON (a dead letter). */
function ndjson(n: number): Buffer {
  const lines = Array.from({ length: n }, (_, i) => (i % 1000 === 999 ? 'not json' : JSON.stringify({ name: `Event ${i}`, seq: i, kind: 'reading', note: 'x'.repeat(40) })));
  return Buffer.from(`${lines.join('\n')}\n`);
}

async function fileUpload(path: string, bytes: Buffer, fileName: string, type: string, headers: Record<string, string> = {}) {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type }), fileName);
  const res = await fetch(`${trove.baseUrl}${path}`, { method: 'POST', headers: { ...bearer(key), ...headers }, body: form });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

/**
 * Reads the upload (and the list of running ones) over and over until it has ended: every status read, and whether
 * the list showed it while it ran.
 */
async function watch(uploadId: string): Promise<{ reads: Status[]; listed: boolean }> {
  const reads: Status[] = [];
  let listed = false;
  const deadline = Date.now() + 150_000;
  for (;;) {
    const res = await api<Status>('GET', `/api/v1/uploads/${uploadId}`, { headers: bearer(key) });
    expect(res.status).toBe(200);
    reads.push(res.body);
    if (res.body.status !== 'processing') return { reads, listed };
    const running = await api('GET', '/api/v1/uploads?status=processing', { headers: bearer(key) });
    expect(running.status).toBe(200);
    const item = running.body.items.find((u: { id: string }) => u.id === uploadId);
    if (item) {
      listed = true;
      expect(item).toMatchObject({ status: 'processing', completed_at: null });
    }
    if (Date.now() > deadline) throw new Error(`upload ${uploadId} still processing: ${JSON.stringify(res.body)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** What a synchronous answer and the final status read of the same bytes share. */
const outcome = (body: Pick<Status, 'summary' | 'errors' | 'metadata'>) => ({
  summary: body.summary,
  errors: body.errors,
  file_hash: body.metadata.file_hash,
  reconciliation_passed: body.metadata.reconciliation_passed,
});

/** The reads of a running upload show its counts growing, never past what it has read, and its bytes read of the whole. */
function expectGrowing(reads: Status[], size: number) {
  const running = reads.filter((r) => r.status === 'processing');
  expect(running.length).toBeGreaterThan(1);
  const accepted = running.map((r) => r.summary.accepted);
  expect(accepted).toEqual([...accepted].sort((a, b) => a - b));
  expect(new Set(accepted).size).toBeGreaterThan(1);
  for (const r of running) {
    expect(r.progress.bytes_total).toBe(size);
    expect(r.progress.bytes_read).toBeLessThanOrEqual(size);
    expect(r.progress.records_read).toBe(r.summary.submitted);
    expect(r.summary.accepted + r.summary.rejected + r.summary.dedup_skipped).toBeLessThanOrEqual(r.summary.submitted);
  }
  expect(running.some((r) => r.summary.accepted > 0)).toBe(true);
}

describe('an upload answered asynchronously, through the gateway', () => {
  it('takes a large CSV file with 202, shows it being written, and ends as the synchronous upload of the file does', async () => {
    const file = csv(30_000);
    const sync = await fileUpload('/api/v1/upload/bolts-sync/product/upload', file, 'bolts.csv', 'text/csv');
    expect(sync.status).toBe(201);
    expect(sync.headers.get('preference-applied')).toBeNull();

    const res = await fileUpload('/api/v1/upload/bolts-async/product/upload', file, 'bolts.csv', 'text/csv', { prefer: 'respond-async' });
    expect([res.status, res.headers.get('preference-applied')]).toEqual([202, 'respond-async']);
    expect(res.body).toEqual({ upload_id: expect.any(String), status: 'processing' });

    const { reads, listed } = await watch(res.body.upload_id);
    expectGrowing(reads, file.length);
    expect(listed).toBe(true);
    const last = reads[reads.length - 1]!;
    expect(last).toMatchObject({ status: 'complete', progress: { records_read: 30_000, bytes_read: file.length, bytes_total: file.length } });
    expect(outcome(last)).toEqual(outcome(sync.body));
    expect(last.summary).toEqual({ submitted: 30_000, accepted: 29_970, rejected: 30, dedup_skipped: 0 });
    const done = await api('GET', `/api/v1/uploads?status=processing`, { headers: bearer(key) });
    expect(done.body.items.map((u: { id: string }) => u.id)).not.toContain(res.body.upload_id);
  });

  it('takes a large NDJSON stream with 202 as an upload of its own, and ends as the synchronous upload of the same bytes does', async () => {
    const body = ndjson(20_000);
    const sync = await fileUpload('/api/v1/upload/events-sync/reading/upload', body, 'events.ndjson', 'application/x-ndjson');
    expect(sync.status).toBe(201);

    const res = await api('POST', '/api/v1/upload/events-async/reading/stream', {
      headers: { ...bearer(key), 'content-type': 'application/x-ndjson', prefer: 'respond-async' },
      raw: body,
    });
    expect([res.status, res.headers.get('preference-applied')]).toEqual([202, 'respond-async']);
    expect(res.body).toEqual({ upload_id: expect.any(String), status: 'processing' });

    const { reads, listed } = await watch(res.body.upload_id);
    expectGrowing(reads, body.length);
    expect(listed).toBe(true);
    const last = reads[reads.length - 1]!;
    expect(last).toMatchObject({ status: 'complete', progress: { records_read: 20_000, bytes_read: body.length, bytes_total: body.length } });
    expect(outcome(last)).toEqual(outcome(sync.body));
    expect(last.summary).toEqual({ submitted: 20_000, accepted: 19_980, rejected: 20, dedup_skipped: 0 });
  });

  it('answers as specified without the preference, or with one it does not know', async () => {
    const records = { records: [{ name: 'Washer M8' }] };
    const preferences: Array<Record<string, string>> = [{}, { prefer: 'respond-asynchronously' }, { prefer: 'respond-async=please' }, { prefer: 'wait=5' }];
    for (const headers of preferences) {
      const res = await api('POST', '/api/v1/upload/washers/product/batch', { headers: { ...bearer(key), ...headers }, body: records });
      expect([res.status, res.headers.get('preference-applied'), res.body.status]).toEqual([201, null, 'complete']);
    }
    const stream = await api('POST', '/api/v1/upload/washers/event/stream', {
      headers: { ...bearer(key), 'content-type': 'application/x-ndjson', prefer: 'return=minimal' },
      raw: '{"name":"w"}\n',
    });
    expect([stream.status, stream.body]).toEqual([200, { accepted: 1, parse_errors: 0, buffer_size: expect.any(Number), flushed: expect.any(Boolean) }]);
  });

  it("keeps a tenant's uploads from another tenant: 404 and an empty list", async () => {
    const res = await api('POST', '/api/v1/upload/private/product/batch', {
      headers: { ...bearer(key), prefer: 'respond-async' },
      body: { records: [{ name: 'Mine' }] },
    });
    expect(res.status).toBe(202);
    const other = await trove.keyFor(randomUUID(), ['upload']);
    const read = await api('GET', `/api/v1/uploads/${res.body.upload_id}`, { headers: bearer(other) });
    const missing = await api('GET', `/api/v1/uploads/${randomUUID()}`, { headers: bearer(other) });
    expect([read.status, read.body]).toEqual([404, { detail: `Upload ${res.body.upload_id} not found` }]);
    expect(missing.status).toBe(404);
    expect((await api('GET', '/api/v1/uploads', { headers: bearer(other) })).body).toEqual({ items: [], cursor: null, has_more: false });
    expect((await watch(res.body.upload_id)).reads.pop()).toMatchObject({ status: 'complete', summary: { accepted: 1 } });
  });

  it("shows a person signed in to the portal their tenant's uploads", async () => {
    const person = await signUp(api);
    const form = new FormData();
    form.append('file', new Blob([csv(50)], { type: 'text/csv' }), 'first.csv');
    const res = await fetch(`${trove.baseUrl}/api/v1/portal/upload/bolts/product/upload`, {
      method: 'POST',
      headers: { ...portalAuth(person.token), prefer: 'respond-async' },
      body: form,
    });
    expect([res.status, res.headers.get('preference-applied')]).toEqual([202, 'respond-async']);
    const { upload_id } = (await res.json()) as { upload_id: string };
    let status: any;
    for (let i = 0; i < 200; i++) {
      status = (await api('GET', `/api/v1/portal/uploads/${upload_id}`, { headers: portalAuth(person.token) })).body;
      if (status.status !== 'processing') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(status).toMatchObject({ status: 'complete', source_name: 'first.csv', summary: { submitted: 50, accepted: 50 } });
    const list = await api('GET', '/api/v1/portal/uploads', { headers: portalAuth(person.token) });
    expect(list.body.items.map((u: { id: string }) => u.id)).toEqual([upload_id]);
    expect((await api('GET', `/api/v1/portal/uploads/${upload_id}`, { headers: bearer(key) })).status).toBe(401);
  });
});
