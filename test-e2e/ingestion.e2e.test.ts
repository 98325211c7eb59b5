import { createHmac, randomUUID } from 'node:crypto';
import { bearer, useTrove } from './support/system';

jest.setTimeout(120_000);

const SECRET = 'e2e-webhook-secret';
/** A small upload limit, so the over-limit cases send megabytes rather than the default's 50. */
const UPLOAD_MAX_BYTES = 1024 * 1024;
const trove = useTrove({ env: { WEBHOOK_SECRET: SECRET, UPLOAD_MAX_BYTES: String(UPLOAD_MAX_BYTES) } });
const api = trove.api;
let key: string;

beforeAll(async () => {
  key = await trove.keyFor(randomUUID(), ['admin']);
});

async function upload(path: string, file: string, fileName: string, type: string, fields: Record<string, string> = {}) {
  const form = new FormData();
  form.append('file', new Blob([file], { type }), fileName);
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  const res = await fetch(`${trove.baseUrl}${path}`, { method: 'POST', headers: bearer(key), body: form });
  return { status: res.status, body: (await res.json()) as any };
}

async function recordsOf(collection: string) {
  const list = await api('GET', `/api/v1/records?collection=${collection}&limit=100`, { headers: bearer(key) });
  return Promise.all(list.body.items.map(async (it: { id: string }) => (await api('GET', `/api/v1/records/${it.id}`, { headers: bearer(key) })).body));
}

describe('ingestion through the gateway', () => {
  it('uploads a batch, reports a dead letter for a nameless record, and skips an identical re-upload', async () => {
    const body = {
      records: [
        { name: 'Bolt A', source_id: 'A', collection_data: { price: 1.5 } },
        { collection_data: { price: 2 } },
        { name: 'Bolt B', source_id: 'B' },
      ],
    };
    const res = await api('POST', '/api/v1/upload/parts/product/batch', { headers: bearer(key), body });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      upload_id: expect.any(String),
      status: 'complete',
      summary: { submitted: 3, accepted: 2, rejected: 1, dedup_skipped: 0 },
      metadata: { reconciliation_passed: true, pipeline_backpressure: false, file_hash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) },
    });
    const status = await api('GET', `/api/v1/uploads/${res.body.upload_id}`, { headers: bearer(key) });
    expect(status.body).toMatchObject({ id: res.body.upload_id, status: 'complete', created_at: expect.any(String), completed_at: expect.any(String) });
    const errors = await api('GET', `/api/v1/uploads/${res.body.upload_id}/errors`, { headers: bearer(key) });
    expect(errors.body).toEqual([{ record_index: 1, error: expect.stringMatching(/name/i), record_data: { collection_data: { price: 2 } } }]);

    const again = await api('POST', '/api/v1/upload/parts/product/batch', { headers: bearer(key), body });
    expect(again.body.summary).toEqual({ submitted: 3, accepted: 0, rejected: 1, dedup_skipped: 2 });
    const changed = await api('POST', '/api/v1/upload/parts/product/batch', {
      headers: bearer(key),
      body: { records: [{ name: 'Bolt A', source_id: 'A', collection_data: { price: 1.75 } }] },
    });
    expect(changed.body.summary).toEqual({ submitted: 1, accepted: 1, rejected: 0, dedup_skipped: 0 });
    const stored = await recordsOf('parts');
    expect(stored.map((r: { name: string }) => r.name).sort()).toEqual(['Bolt A', 'Bolt B']);
    expect(stored.find((r: { name: string }) => r.name === 'Bolt A')).toMatchObject({
      source_id: 'A',
      source_type: 'api',
      collection_data: { price: 1.75 },
    });
  });

  it('streams a CSV file through the gateway into typed records', async () => {
    const csv = 'title;ean;price;in_stock\n"Hex nut; M8";4006381333931;0.05;true\nWasher M8;4006381333948;0.02;false\n';
    const res = await upload('/api/v1/upload/nuts/product/upload', csv, 'nuts.csv', 'text/csv', { name_column: 'title' });
    expect(res.status).toBe(201);
    expect(res.body.summary).toMatchObject({ submitted: 2, accepted: 2, rejected: 0 });
    const stored = await recordsOf('nuts');
    const nut = stored.find((r: { name: string }) => r.name === 'Hex nut; M8');
    expect(nut).toMatchObject({
      source_type: 'file_upload',
      source_name: 'nuts.csv',
      collection_data: { ean: '4006381333931', price: 0.05, in_stock: true },
    });
  });

  it('refuses a file of the wrong kind with 422 and a bad webhook signature with 401', async () => {
    const bad = await upload('/api/v1/upload/nuts/product/upload', '%PDF-1.4 not really', 'x.pdf', 'application/pdf');
    expect(bad.status).toBe(422);
    const body = JSON.stringify({ records: [{ name: 'hooked' }] });
    const unsigned = await api('POST', '/api/v1/webhooks/upload/hooks/event', { headers: bearer(key), raw: body });
    expect(unsigned.status).toBe(401);
    const signature = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
    const signed = await api('POST', '/api/v1/webhooks/upload/hooks/event', {
      headers: { ...bearer(key), 'x-webhook-signature': signature },
      raw: body,
    });
    expect(signed.status).toBe(201);
    const stored = await recordsOf('hooks');
    expect(stored).toEqual([expect.objectContaining({ name: 'hooked', source_type: 'webhook' })]);
  });

  it('answers 413 to files and streams over the upload limit, each time, and stores none of them', async () => {
    const line = (i: number) => `{"name":"big-${i}","pad":"${'x'.repeat(100)}"}\n`;
    const ndjson = Array.from({ length: Math.ceil((8 * UPLOAD_MAX_BYTES) / line(0).length) }, (_, i) => line(i)).join('');
    for (let attempt = 0; attempt < 3; attempt++) {
      const file = await upload('/api/v1/upload/oversize/product/upload', ndjson, 'big.ndjson', 'application/x-ndjson');
      expect([attempt, file.status]).toEqual([attempt, 413]);
      expect(file.body.detail).toMatch(/exceeds the upload limit/);
      const stream = await api('POST', '/api/v1/upload/oversize/product/stream', {
        headers: { ...bearer(key), 'content-type': 'application/x-ndjson' },
        raw: ndjson,
      });
      expect([attempt, stream.status]).toEqual([attempt, 413]);
    }
    expect(await recordsOf('oversize')).toEqual([]);
    const small = await upload('/api/v1/upload/oversize/product/upload', line(0), 'small.ndjson', 'application/x-ndjson');
    expect(small.status).toBe(201);
  });

  it('accepts an NDJSON stream and flushes it into records', async () => {
    const lines = '{"name":"s1","n":1}\n{"name":"s2","n":2}\nnot json\n';
    const res = await api('POST', '/api/v1/upload/streamed/item/stream', {
      headers: { ...bearer(key), 'content-type': 'application/x-ndjson' },
      raw: lines,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ accepted: 2, parse_errors: 1 });
    let names: string[] = [];
    for (let i = 0; i < 50 && names.length < 2; i++) {
      names = (await recordsOf('streamed')).map((r: { name: string }) => r.name).sort();
      if (names.length < 2) await new Promise((r) => setTimeout(r, 200));
    }
    expect(names).toEqual(['s1', 's2']);
  });

  it('serves the older vocabulary: /ingest batch and file uploads, /ingestions status and dead letters, /pipeline status', async () => {
    const res = await api('POST', '/api/v1/ingest/legacy/product/batch', {
      headers: bearer(key),
      body: { records: [{ name: 'Old bolt', source_id: 'O-1', vertical_data: { price: 3 } }, { vertical_data: { price: 4 } }] },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ingestion_id: expect.any(String), status: 'processing', record_count: 1, duplicate_count: 0, entity_ids: [expect.any(String)] });
    const stored = await api('GET', `/api/v1/records/${res.body.entity_ids[0]}`, { headers: bearer(key) });
    expect(stored.body).toMatchObject({ name: 'Old bolt', collection: 'legacy', record_type: 'product', collection_data: { price: 3 } });

    const status = await api('GET', `/api/v1/ingestions/${res.body.ingestion_id}`, { headers: bearer(key) });
    expect(status.body).toMatchObject({ id: res.body.ingestion_id, status: 'completed', record_count: 1, duplicate_count: 0, error_count: 1 });
    const errors = await api('GET', `/api/v1/ingestions/${res.body.ingestion_id}/errors`, { headers: bearer(key) });
    expect(errors.body).toEqual([{ record_index: 1, error: expect.stringMatching(/name/i), record_data: { vertical_data: { price: 4 } } }]);

    const pipeline = await api('GET', `/api/v1/pipeline/status/${res.body.ingestion_id}`, { headers: bearer(key) });
    expect(pipeline.status).toBe(200);
    expect(pipeline.body).toMatchObject({ ingestion_id: res.body.ingestion_id, total: 1 });
    expect(pipeline.body.pending + pipeline.body.processing + pipeline.body.completed + pipeline.body.failed).toBe(1);

    const file = await upload('/api/v1/ingest/legacy/product/upload', 'name,sku\nOld nut,N-9\n', 'old.csv', 'text/csv');
    expect(file.status).toBe(200);
    expect(file.body).toMatchObject({ record_count: 1, duplicate_count: 0, entity_ids: [expect.any(String)] });
  });

  it('refuses uploads from a key without the upload scope', async () => {
    const rec = await trove.keyFor({ adminKey: key }, ['records']);
    const res = await api('POST', '/api/v1/upload/parts/product/batch', { headers: bearer(rec), body: { records: [] } });
    expect(res.status).toBe(403);
  });
});
