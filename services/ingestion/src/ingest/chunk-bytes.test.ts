import { as, newTenant, recordsOf, startSystem, type System } from '../../test/helpers';

/**
 * Chunks are bounded by bytes as well as by count: an upload of large records is written in several chunks, each under
 * records' body limit, instead of one chunk records refuses whole.
 */
let system: System;

beforeAll(async () => {
  system = await startSystem({ UPLOAD_MAX_BYTES: String(100 * 1024 * 1024) });
});
afterAll(() => system.stop());

it('stores every record of an upload whose records together outgrow one call to records (80 records of 900 KB)', async () => {
  const tenant = newTenant();
  const lines = Array.from({ length: 80 }, (_, i) => JSON.stringify({ name: `Manual ${i}`, source_id: `m-${i}`, text: `${i}`.padEnd(900_000, 'x') }));
  const file = Buffer.from(`${lines.join('\n')}\n`);
  expect(file.length).toBeGreaterThan(68 * 1024 * 1024);

  const res = await as(system.ingestion, tenant)
    .post('/upload/manuals/manual/upload')
    .attach('file', file, { filename: 'manuals.ndjson', contentType: 'application/x-ndjson' });

  expect(res.status).toBe(201);
  expect(res.body.summary).toEqual({ submitted: 80, accepted: 80, rejected: 0, dedup_skipped: 0 });
  expect(res.body.metadata.reconciliation_passed).toBe(true);
  const stored = await recordsOf(system, tenant, 'manuals');
  expect(stored).toHaveLength(80);
  expect(stored.every((r) => (r.collection_data.text as string).length === 900_000)).toBe(true);
}, 120_000);
