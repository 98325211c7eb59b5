import type { TestService } from '@trove/testing';
import { as, countOf, eventually, newTenant, recordsOf, startSystem, type System } from '../../test/helpers';

let system: System;

beforeAll(async () => {
  system = await startSystem({ STREAM_FLUSH_INTERVAL_MS: '100' });
});
afterAll(() => system.stop());

const ndjson = (lines: unknown[]) => lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n';

function stream(svc: TestService, tenant: string, collection: string, body: string, type = 'application/x-ndjson') {
  return as(svc, tenant).post(`/upload/${collection}/event/stream`).set('content-type', type).send(body);
}

describe('POST /upload/{collection}/{record_type}/stream', () => {
  it('counts accepted lines and parse errors, then the timer flushes the records into records', async () => {
    const tenant = newTenant();
    const res = await stream(
      system.ingestion,
      tenant,
      'events',
      ndjson([{ name: 's1', n: 1, ok: true }, { name: 's2', source_id: 'e-2', n: 2.5 }, 'not json', { n: 3 }, '[1,2]']),
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ accepted: 2, parse_errors: 3, buffer_size: 2, flushed: false });

    await eventually(async () => expect(await countOf(system, tenant, 'events')).toBe(2));
    const stored = await recordsOf(system, tenant, 'events');
    expect(stored[0]).toMatchObject({ name: 's1', collection_data: { n: 1, ok: true }, source_type: 'api', source_name: null, source_id: null });
    expect(stored[1]).toMatchObject({ name: 's2', collection_data: { n: 2.5 }, source_id: 'e-2' });
  });

  it('answers 415 for a body that is not NDJSON', async () => {
    const res = await stream(system.ingestion, newTenant(), 'events', '{"records":[]}', 'application/json');
    expect(res.status).toBe(415);
    expect(res.body.detail).toMatch(/application\/x-ndjson/);
  });

  it('answers 422 for an invalid collection in the path', async () => {
    const res = await stream(system.ingestion, newTenant(), 'bad name!', ndjson([{ name: 'a' }]));
    expect(res.status).toBe(422);
  });
});

describe('stream flushes', () => {
  it('flushes before answering when a request fills a chunk, and names the upload holding its dead letters', async () => {
    const svc = await system.startIngestion({ INGEST_CHUNK_SIZE: '5', STREAM_FLUSH_INTERVAL_MS: '600000' });
    const tenant = newTenant();
    const lines = [...Array.from({ length: 6 }, (_, i) => ({ name: `c${i}`, i })), 'oops', { no_name: true }];
    const res = await stream(svc, tenant, 'chunked', ndjson(lines));
    expect(res.body).toEqual({ accepted: 6, parse_errors: 2, buffer_size: 0, flushed: true });
    expect(await countOf(system, tenant, 'chunked')).toBe(6);

    const uploadId = res.headers['x-upload-id'];
    const upload = await as(svc, tenant).get(`/uploads/${uploadId}`);
    expect(upload.body).toMatchObject({ status: 'complete', summary: { submitted: 8, accepted: 6, rejected: 2, dedup_skipped: 0 } });
    const errors = await as(svc, tenant).get(`/uploads/${uploadId}/errors`);
    expect(errors.body).toEqual([
      { record_index: 6, error: expect.stringMatching(/^line 7: invalid JSON/), record_data: { value: 'oops' } },
      { record_index: 7, error: 'name is required', record_data: { no_name: true } },
    ]);
  });

  it('answers 429 when a request would overflow the buffer, adds none of it, and flushes what it holds on stop', async () => {
    const svc = await system.startIngestion({ STREAM_BUFFER_LIMIT: '10', STREAM_FLUSH_INTERVAL_MS: '600000' });
    const tenant = newTenant();
    const first = await stream(svc, tenant, 'bounded', ndjson(Array.from({ length: 6 }, (_, i) => ({ name: `kept ${i}` }))));
    expect(first.body).toEqual({ accepted: 6, parse_errors: 0, buffer_size: 6, flushed: false });

    const over = await stream(svc, tenant, 'bounded', ndjson(Array.from({ length: 5 }, (_, i) => ({ name: `refused ${i}` }))));
    expect(over.status).toBe(429);
    expect(over.body.detail).toMatch(/6 of 10/);

    const alone = await stream(svc, tenant, 'bounded', ndjson(Array.from({ length: 11 }, (_, i) => ({ name: `too many ${i}` }))));
    expect(alone.status).toBe(429);

    // Another target of the same tenant has a buffer of its own.
    expect((await stream(svc, tenant, 'other', ndjson([{ name: 'elsewhere' }]))).status).toBe(200);

    const fits = await stream(svc, tenant, 'bounded', ndjson(Array.from({ length: 4 }, (_, i) => ({ name: `fits ${i}` }))));
    expect(fits.body).toEqual({ accepted: 4, parse_errors: 0, buffer_size: 10, flushed: false });
    expect(await countOf(system, tenant, 'bounded')).toBe(0);

    await svc.stop();
    const names = (await recordsOf(system, tenant, 'bounded')).map((r) => r.name);
    expect(names).toEqual([...Array.from({ length: 4 }, (_, i) => `fits ${i}`), ...Array.from({ length: 6 }, (_, i) => `kept ${i}`)]);
    expect((await recordsOf(system, tenant, 'other')).map((r) => r.name)).toEqual(['elsewhere']);
  });
});
