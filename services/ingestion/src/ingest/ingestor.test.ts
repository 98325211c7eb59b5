import { randomUUID } from 'node:crypto';
import type { BulkUpsertRequest } from '@trove/contracts';
import { migrate } from '@trove/db';
import { createLogger } from '@trove/platform';
import { createTestDatabase, type TestDatabase } from '@trove/testing';
import { migrations } from '../migrations';
import type { ChunkOutcome, RecordsWriter } from '../records';
import type { Db } from '../schema';
import { MAX_CHUNKS_IN_FLIGHT } from './chunk-scheduler';
import { Ingestor, UploadAborted, type SubmittedItem } from './ingestor';
import { mapRecord } from './record-mapping';
import { findUpload, deadLetterPage } from './upload-store';
import { UploadWatch } from './upload-watch';

let tdb: TestDatabase;
let db: Db;
const identity = { tenantId: 'tenant-1', principal: 'test', scopes: ['upload' as const] };
const target = { identity, collection: 'c', recordType: 't', sourceType: 'api' as const, sourceName: null };

beforeAll(async () => {
  tdb = await createTestDatabase();
  await migrate(tdb.database, 'ingestion', migrations);
  db = tdb.database.db;
});
afterAll(() => tdb.drop());

/** A records stand-in that answers each call with `answer` and remembers what it was sent. */
class FakeRecords implements RecordsWriter {
  calls: BulkUpsertRequest[] = [];
  inFlight = 0;
  maxInFlight = 0;
  constructor(private readonly answer: (req: BulkUpsertRequest, call: number) => ChunkOutcome = (req) => created(req)) {}
  /** Source ids two chunks in flight at the same time had in common. */
  overlaps: string[] = [];
  private readonly writing = new Set<BulkUpsertRequest>();
  async upsert(_identity: unknown, req: BulkUpsertRequest): Promise<ChunkOutcome> {
    this.calls.push(req);
    for (const other of this.writing) {
      const ids = new Set(other.records.map((r) => r.source_id));
      this.overlaps.push(...req.records.flatMap((r) => (r.source_id != null && ids.has(r.source_id) ? [r.source_id] : [])));
    }
    this.writing.add(req);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    await new Promise((r) => setTimeout(r, 5));
    this.inFlight--;
    this.writing.delete(req);
    return this.answer(req, this.calls.length - 1);
  }
}

function created(req: BulkUpsertRequest, pending = 0): ChunkOutcome {
  return { kind: 'written', response: { results: req.records.map(() => ({ status: 'created', id: randomUUID() })), pending_indexing: pending } };
}

function items(n: number, onRead?: (i: number) => void, sourceId?: (i: number) => string): AsyncIterable<SubmittedItem> {
  return (async function* () {
    for (let index = 0; index < n; index++) {
      onRead?.(index);
      const raw = sourceId ? { name: `r${index}`, source_id: sourceId(index) } : { name: `r${index}` };
      yield { index, raw, mapped: mapRecord(raw) };
    }
  })();
}

const ingestor = (writer: RecordsWriter, chunkSize = 10, backlogThreshold = 100) =>
  new Ingestor({ db, writer, logger: createLogger({ level: 'silent' }), chunkSize, backlogThreshold });

describe('Ingestor', () => {
  it('writes chunks of the chunk size one call at a time, reading no more than one chunk ahead', async () => {
    const writer = new FakeRecords();
    let read = 0;
    let maxAhead = 0;
    const ing = ingestor(writer);
    const written = () => writer.calls.length * 10;
    const result = await ing.ingest(target, items(35, (i) => {
      read = i + 1;
      maxAhead = Math.max(maxAhead, read - written());
    }), () => 'sha256:x');
    expect(writer.calls.map((c) => c.records.length)).toEqual([10, 10, 10, 5]);
    expect(writer.maxInFlight).toBe(1);
    expect(maxAhead).toBeLessThanOrEqual(10);
    expect(result.summary).toEqual({ submitted: 35, accepted: 35, rejected: 0, dedup_skipped: 0 });
    expect(result.metadata.reconciliation_passed).toBe(true);
    expect(await findUpload(db, 'tenant-1', result.upload_id)).toMatchObject({ status: 'complete', accepted: 35, file_hash: 'sha256:x' });
  });

  it('writes several chunks at once when every record has a source id and they share none, reading no further ahead', async () => {
    const writer = new FakeRecords();
    let maxAhead = 0;
    const result = await ingestor(writer).ingest(
      target,
      items(45, (i) => (maxAhead = Math.max(maxAhead, i + 1 - writer.calls.length * 10)), (i) => `S-${i}`),
      () => 'sha256:x',
    );
    expect(MAX_CHUNKS_IN_FLIGHT).toBeGreaterThan(1);
    expect(writer.calls.map((c) => c.records.length)).toEqual([10, 10, 10, 10, 5]);
    expect(writer.maxInFlight).toBe(MAX_CHUNKS_IN_FLIGHT);
    expect(maxAhead).toBeLessThanOrEqual(10 * MAX_CHUNKS_IN_FLIGHT);
    expect(result.summary).toEqual({ submitted: 45, accepted: 45, rejected: 0, dedup_skipped: 0 });
  });

  it('writes a chunk only after the one before when they share a source id, so the later record wins', async () => {
    const writer = new FakeRecords();
    // Items 5 and 15 (chunks 1 and 2) carry the same source id; chunks 3 and 4 share none with anything.
    await ingestor(writer).ingest(target, items(40, undefined, (i) => (i === 15 ? 'S-5' : `S-${i}`)), () => 'sha256:x');
    const overlapping = writer.calls.findIndex((c) => c.records.some((r) => r.name === 'r15'));
    expect(overlapping).toBe(1);
    expect(writer.overlaps).toEqual([]);
    expect(writer.maxInFlight).toBeGreaterThan(1);
  });

  it('sends a chunk once: one records refuses is dead-lettered whole with its reason, never resent in part', async () => {
    const writer = new FakeRecords((req, call) =>
      call === 0 ? { kind: 'failed', reason: 'records answered 422: Value should be at most 500 characters' } : created(req),
    );
    const result = await ingestor(writer).ingest(target, items(3), () => 'sha256:x');
    expect(writer.calls.map((c) => c.records.map((r) => r.name))).toEqual([['r0', 'r1', 'r2']]);
    expect(result.summary).toEqual({ submitted: 3, accepted: 0, rejected: 3, dedup_skipped: 0 });
    expect(result.errors).toEqual(
      [0, 1, 2].map((i) => ({
        record_index: i,
        error: 'not written: records answered 422: Value should be at most 500 characters',
        record_data: { name: `r${i}` },
      })),
    );
    expect(result.metadata.reconciliation_passed).toBe(false);
  });

  it('rejects a failed chunk whole, writes the others, and fails reconciliation', async () => {
    const writer = new FakeRecords((req, call) => (call === 1 ? { kind: 'failed', reason: 'records answered 500' } : created(req)));
    const result = await ingestor(writer).ingest(target, items(25), () => 'sha256:x');
    expect(result.summary).toEqual({ submitted: 25, accepted: 15, rejected: 10, dedup_skipped: 0 });
    expect(result.metadata.reconciliation_passed).toBe(false);
    expect(result.errors.map((e) => e.record_index)).toEqual([10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
    expect(result.errors[0]!.error).toBe('not written: records answered 500');
  });

  it('counts skipped records as duplicates and reports back-pressure above the backlog threshold', async () => {
    const writer = new FakeRecords((req) => ({
      kind: 'written',
      response: { results: req.records.map((_, i) => ({ status: i === 0 ? 'skipped' : 'updated', id: randomUUID() })), pending_indexing: 101 },
    }));
    const result = await ingestor(writer).ingest(target, items(4), () => 'sha256:x');
    expect(result.summary).toEqual({ submitted: 4, accepted: 3, rejected: 0, dedup_skipped: 1 });
    expect(result.metadata.pipeline_backpressure).toBe(true);
  });

  it('marks the upload failed with its counts when reading the items fails, keeping whole chunks written before and sending no partial one', async () => {
    const writer = new FakeRecords();
    const failing = (async function* () {
      yield* items(12);
      throw new Error('the file ended early');
    })();
    const err = await ingestor(writer).ingest(target, failing, () => 'sha256:x').catch((e) => e);
    expect(err).toBeInstanceOf(UploadAborted);
    expect(err.cause.message).toBe('the file ended early');
    expect(err.stored).toBe(10);
    expect(writer.calls.map((c) => c.records.length)).toEqual([10]);
    expect(await findUpload(db, 'tenant-1', err.uploadId)).toMatchObject({ status: 'failed', submitted: 12, accepted: 10, reconciliation_passed: false });
    expect(await deadLetterPage(db, err.uploadId, -1, 10)).toEqual([]);
  });
});

describe('UploadWatch', () => {
  it('keeps an upload that is still running processing however long it takes, and it completes', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let writing!: () => void;
    const started = new Promise<void>((resolve) => (writing = resolve));
    const writer: RecordsWriter = {
      async upsert(_identity, req) {
        writing();
        await held;
        return created(req);
      },
    };
    const ing = ingestor(writer);
    const watch = new UploadWatch({ db, ingestor: ing, logger: createLogger({ level: 'silent' }), staleSeconds: 1 });
    watch.start();
    try {
      const upload = ing.ingest(target, items(3), () => 'sha256:x');
      await started;
      const [id] = ing.runningUploads();

      await new Promise((r) => setTimeout(r, 2_500));

      expect(await findUpload(db, 'tenant-1', id!)).toMatchObject({ status: 'processing' });
      release();
      expect((await upload).summary).toEqual({ submitted: 3, accepted: 3, rejected: 0, dedup_skipped: 0 });
      expect(await findUpload(db, 'tenant-1', id!)).toMatchObject({ status: 'complete', accepted: 3 });
      expect(ing.runningUploads()).toEqual([]);
    } finally {
      release();
      await watch.stop();
    }
  });
});
