import { randomUUID } from 'node:crypto';
import type { BulkUpsertRequest } from '@trove/contracts';
import { migrate } from '@trove/db';
import { createLogger, HttpError } from '@trove/platform';
import { createTestDatabase, eventually, type TestDatabase } from '@trove/testing';
import { migrations } from '../migrations';
import { UnparseableFileError } from '../parsers/types';
import type { ChunkOutcome, RecordsWriter } from '../records';
import type { Db } from '../schema';
import { AsyncUploads, STOPPED, type AsyncJob } from './async-uploads';
import { Ingestor, type SubmittedItem, type UploadTarget } from './ingestor';
import { mapRecord } from './record-mapping';
import { findUpload } from './upload-store';

let tdb: TestDatabase;
let db: Db;

beforeAll(async () => {
  tdb = await createTestDatabase();
  await migrate(tdb.database, 'ingestion', migrations);
  db = tdb.database.db;
});
afterAll(() => tdb.drop());

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A records stand-in that writes every chunk, taking `ms` for each. */
class SlowRecords implements RecordsWriter {
  chunks = 0;
  constructor(private readonly ms: number) {}
  async upsert(_identity: unknown, req: BulkUpsertRequest): Promise<ChunkOutcome> {
    await tick(this.ms);
    this.chunks++;
    return { kind: 'written', response: { results: req.records.map(() => ({ status: 'created', id: randomUUID() })), pending_indexing: 0 } };
  }
}

const target = (tenantId: string): UploadTarget => ({
  identity: { tenantId, principal: 'test', scopes: ['upload'] },
  collection: 'c',
  recordType: 't',
  sourceType: 'file_upload',
  sourceName: 'rows.csv',
});

/** `n` records, as if read from a file of 10 bytes per record; `fail` throws in place of the record of that index. */
function file(n: number, fail?: { at: number; error: Error }) {
  let read = 0;
  async function* items(): AsyncIterable<SubmittedItem> {
    for (let index = 0; index < n; index++) {
      if (fail && index === fail.at) throw fail.error;
      read += 10;
      const raw = { name: `r${index}` };
      yield { index, raw, mapped: mapRecord(raw) };
    }
  }
  return { progress: { bytesTotal: n * 10, bytesRead: () => read }, items };
}

function setUp(writeMs: number, graceMs = 10_000) {
  const writer = new SlowRecords(writeMs);
  const ingestor = new Ingestor({ db, writer, logger: createLogger({ level: 'silent' }), chunkSize: 10, backlogThreshold: 100 });
  const later = new AsyncUploads({ ingestor, logger: createLogger({ level: 'silent' }), graceMs });
  return { writer, ingestor, later };
}

/** Takes an upload of `n` records for the tenant; answers its id once registered. */
function accept(later: AsyncUploads, tenantId: string, n: number, extra: Partial<AsyncJob> = {}, fail?: { at: number; error: Error }) {
  const f = file(n, fail);
  return later.accept(tenantId, async () => ({ target: target(tenantId), progress: f.progress, job: { items: f.items, fileHash: () => 'sha256:x', ...extra } }));
}

describe('AsyncUploads', () => {
  it('answers once the upload is registered, and stores its counts and progress as they grow, then its outcome', async () => {
    const { later } = setUp(40);
    const tenant = randomUUID();
    const id = await accept(later, tenant, 300);
    const first = await findUpload(db, tenant, id);
    expect(first).toMatchObject({ status: 'processing', submitted: 0, bytes_read: 0, bytes_total: 3000, records_total: null });

    // Seen as another process sees it: the stored row, while the chunks are written.
    const seen: Array<{ submitted: number; accepted: number; bytes_read: number | null }> = [];
    await eventually(async () => {
      const row = (await findUpload(db, tenant, id))!;
      if (row.status === 'processing') seen.push({ submitted: row.submitted, accepted: row.accepted, bytes_read: row.bytes_read });
      expect(row.status).toBe('complete');
    }, 20_000);
    const moving = seen.filter((s, i) => i > 0 && s.accepted > seen[i - 1]!.accepted);
    expect(moving.length).toBeGreaterThan(1);
    for (const s of seen) expect(s.submitted).toBeGreaterThanOrEqual(s.accepted);
    expect(seen.some((s) => s.accepted > 0 && s.accepted < 300)).toBe(true);
    expect(await findUpload(db, tenant, id)).toMatchObject({
      status: 'complete',
      submitted: 300,
      accepted: 300,
      bytes_read: 3000,
      bytes_total: 3000,
      failure_reason: null,
    });
  });

  it("refuses a tenant's upload past its asynchronous ones running (429, before its body is read), not another tenant's", async () => {
    const { later } = setUp(30);
    const tenant = randomUUID();
    const ids = [await accept(later, tenant, 100), await accept(later, tenant, 100)];
    let received = false;
    const third = later.accept(tenant, async () => {
      received = true;
      throw new Error('not reached');
    });
    await expect(third).rejects.toMatchObject({ status: 429, headers: { 'Retry-After': '1' } });
    expect(received).toBe(false);
    await expect(accept(later, randomUUID(), 10)).resolves.toEqual(expect.any(String));
    await eventually(async () => {
      for (const id of ids) expect((await findUpload(db, tenant, id))!.status).toBe('complete');
    }, 20_000);
    await eventually(async () => expect(await accept(later, tenant, 1)).toEqual(expect.any(String)));
    await later.stop();
  });

  it('frees the place of an upload whose body is refused', async () => {
    const { later } = setUp(1);
    const tenant = randomUUID();
    for (let i = 0; i < 3; i++) {
      await expect(
        later.accept(tenant, async () => {
          throw new HttpError(422, 'validation_error', 'bad file');
        }),
      ).rejects.toMatchObject({ status: 422 });
    }
    await expect(accept(later, tenant, 1)).resolves.toEqual(expect.any(String));
    await later.stop();
  });

  it('stores an upload that fails part-way as failed, with a reason the caller can read, and runs its failure and cleanup', async () => {
    const { later } = setUp(1);
    const tenant = randomUUID();
    const events: string[] = [];
    const id = await accept(
      later,
      tenant,
      100,
      { onFailure: async (err) => void events.push(`failed: ${(err as Error).message}`), cleanup: async () => void events.push('cleaned up') },
      { at: 55, error: new UnparseableFileError('line 56: unexpected end of the JSON file') },
    );
    await eventually(async () => expect((await findUpload(db, tenant, id))!.status).toBe('failed'));
    const row = (await findUpload(db, tenant, id))!;
    expect(row).toMatchObject({ submitted: 55, failure_reason: 'line 56: unexpected end of the JSON file', completed_at: expect.any(Date) });
    // The chunks written before the problem stay written.
    expect(row.accepted).toBe(50);
    await eventually(async () => expect(events).toEqual(['failed: line 56: unexpected end of the JSON file', 'cleaned up']));
  });

  it('names an unexpected error only as such to the caller', async () => {
    const { later } = setUp(1);
    const tenant = randomUUID();
    const id = await accept(later, tenant, 20, {}, { at: 5, error: new Error('connect ECONNREFUSED 10.0.0.7:5432') });
    await eventually(async () => expect((await findUpload(db, tenant, id))!.status).toBe('failed'));
    expect(await findUpload(db, tenant, id)).toMatchObject({
      failure_reason: 'stopped by an unexpected error in the ingestion service',
      failure: 'connect ECONNREFUSED 10.0.0.7:5432',
    });
  });

  it('on stop, lets running uploads finish within the grace period', async () => {
    const { later } = setUp(5, 10_000);
    const tenant = randomUUID();
    const id = await accept(later, tenant, 50);
    await later.stop();
    expect(await findUpload(db, tenant, id)).toMatchObject({ status: 'complete', accepted: 50 });
  });

  it('on stop, interrupts those still running past the grace period: failed at once, with what they wrote', async () => {
    const { later, writer } = setUp(50, 100);
    const tenant = randomUUID();
    let cleaned = false;
    const id = await accept(later, tenant, 1000, { cleanup: async () => void (cleaned = true) });
    const startedAt = Date.now();
    await later.stop();
    expect(Date.now() - startedAt).toBeLessThan(5_000);
    const row = (await findUpload(db, tenant, id))!;
    expect(row).toMatchObject({ status: 'failed', failure_reason: STOPPED, reconciliation_passed: false });
    expect(row.accepted).toBe(writer.chunks * 10);
    expect(row.accepted).toBeGreaterThan(0);
    expect(row.accepted).toBeLessThan(1000);
    expect(cleaned).toBe(true);
    await expect(accept(later, tenant, 1)).rejects.toMatchObject({ status: 503 });
  });

  it('runs failure and cleanup when the upload cannot be registered, and frees its place', async () => {
    const { later } = setUp(1);
    await tdb.database.db.schema.withSchema('ingestion').alterTable('uploads').renameTo('uploads_away').execute();
    const events: string[] = [];
    const tenant = randomUUID();
    try {
      for (let i = 0; i < 3; i++) {
        await expect(accept(later, tenant, 1, { onFailure: async () => void events.push('failed'), cleanup: async () => void events.push('cleaned up') })).rejects.toThrow();
      }
    } finally {
      await tdb.database.db.schema.withSchema('ingestion').alterTable('uploads_away').renameTo('uploads').execute();
    }
    expect(events).toEqual(['failed', 'cleaned up', 'failed', 'cleaned up', 'failed', 'cleaned up']);
  });
});
