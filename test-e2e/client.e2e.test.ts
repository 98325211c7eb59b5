import { randomUUID } from 'node:crypto';
import type { Progress, TroveClient } from '@trove/client' with { 'resolution-mode': 'import' };
import { useTrove } from './support/system';

/*
 * @trove/client alone against the whole system: every request of this file goes through the client (the harness only
 * starts and stops the system). The client is an ES module; this CommonJS test file loads it with import().
 */

jest.setTimeout(180_000);

/** A chunk of this many records fills a stream buffer, so a stream request that reaches it is written at once. */
const CHUNK = 25;
const system = useTrove({ env: { INGEST_CHUNK_SIZE: String(CHUNK) } });
let client: typeof import('@trove/client', { with: { 'resolution-mode': 'import' } });
let trove: TroveClient;

const ROWS = 240;
const csv = [
  'title;sku;size;note',
  ...Array.from({ length: ROWS }, (_, i) => `Hex bolt M${8 + (i % 5)} batch ${i};SKU-${String(i).padStart(4, '0')};${8 + (i % 5)};${'galvanised steel '.repeat(20).trim()}`),
].join('\n');

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not reached in ${timeoutMs} ms (last: ${JSON.stringify(value)})`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

beforeAll(async () => {
  client = await import('@trove/client');
  trove = new client.TroveClient({ baseUrl: system.baseUrl });
});

describe('@trove/client against the system', () => {
  it('signs up on the portal and creates an API key with the portal token', async () => {
    const session = await trove.portal.signUp({ email: `client-${randomUUID()}@example.com`, password: 'a long enough passphrase' });
    expect(session).toMatchObject({ token_type: 'Bearer', account: { tenant_id: expect.any(String) } });
    const key = await trove.portal.createKey({ name: 'client e2e', scopes: ['admin'] });
    expect(key.key).toMatch(/^sk_live_/);
    expect((await trove.portal.listKeys()).map((k) => k.name)).toEqual(['client e2e']);
    trove.setApiKey(key.key);
  });

  it('uploads a CSV with progress, watches the upload to its end, then finds and pages through every row', async () => {
    const progress: Progress[] = [];
    const uploaded = await trove.uploads.file('bolts', 'product', {
      file: new Blob([csv], { type: 'text/csv' }),
      filename: 'bolts.csv',
      fields: { name_column: 'title' },
      onProgress: (p) => progress.push(p),
    });
    expect(uploaded).toMatchObject({ status: 'complete', summary: { submitted: ROWS, accepted: ROWS, rejected: 0 } });
    expect(progress.length).toBeGreaterThan(2);
    const total = progress.at(-1)!.total!;
    expect(total).toBeGreaterThan(csv.length);
    expect(progress.at(-1)!.loaded).toBe(total);
    expect(progress.map((p) => p.loaded)).toEqual([...progress.map((p) => p.loaded)].sort((a, b) => a - b));

    const done = await trove.uploads.wait(uploaded.upload_id);
    expect(done).toMatchObject({ id: uploaded.upload_id, status: 'complete', summary: { accepted: ROWS }, completed_at: expect.any(String) });
    expect(await trove.uploads.errors(uploaded.upload_id)).toEqual([]);

    // Stored is not yet searchable: search indexes the records a moment after the upload answers.
    await eventually(
      () => trove.search('bolts', { query: 'hex bolt', limit: 1 }),
      (answer) => answer.metadata.total_estimate >= ROWS,
      'every row searchable',
    );

    const names = new Map<string, number>();
    let pages = 0;
    for await (const page of trove.searchAll('bolts', { query: 'hex bolt' }, { pageSize: 50 }).pages()) {
      pages++;
      expect(page.results.length).toBeLessThanOrEqual(50);
      for (const result of page.results) names.set(result.name, (names.get(result.name) ?? 0) + 1);
    }
    expect(pages).toBe(Math.ceil(ROWS / 50));
    expect(names.size).toBe(ROWS);
    expect([...names.values()].every((seen) => seen === 1)).toBe(true);
    expect([...names.keys()].sort()).toEqual(Array.from({ length: ROWS }, (_, i) => `Hex bolt M${8 + (i % 5)} batch ${i}`).sort());

    // The records listing's cursor, a hundred at a time: every row once, with its CSV fields as collection_data.
    const listed = await trove.records.iterate({ collection: 'bolts', limit: 100 }).toArray();
    expect(listed).toHaveLength(ROWS);
    expect(new Set(listed.map((r) => r.id)).size).toBe(ROWS);
    const one = await trove.records.get(listed[0]!.id);
    expect(one).toMatchObject({ collection: 'bolts', source_name: 'bolts.csv', collection_data: { sku: expect.stringMatching(/^SKU-\d{4}$/) } });
  });

  it('streams the records of an async generator as NDJSON', async () => {
    // Two requests of at most two chunks: the first fills two chunks, the second one.
    const count = 3 * CHUNK;
    async function* washers() {
      for (let i = 0; i < count; i++) {
        if (i % 10 === 0) await new Promise((r) => setTimeout(r, 5));
        yield { name: `Washer ${i}`, source_id: `w-${i}`, diameter: 8 + (i % 4) };
      }
      // Not a record: a dead letter of the flush that takes it.
      yield { diameter: 99 };
    }
    const summary = await trove.uploads.stream('washers', 'product', washers(), { recordsPerRequest: 2 * CHUNK });
    expect(summary).toMatchObject({ requests: 2, accepted: count, parse_errors: 1 });
    // Each request filled a chunk, so each was written before its answer and named its upload.
    expect(summary.upload_ids).toHaveLength(2);
    for (const id of summary.upload_ids) expect(await trove.uploads.wait(id)).toMatchObject({ status: 'complete' });
    const stored = await eventually(
      () => trove.records.iterate({ collection: 'washers' }).toArray(),
      (records) => records.length === count,
      'every streamed record stored',
    );
    expect(stored.map((r) => r.name).sort()).toEqual(Array.from({ length: count }, (_, i) => `Washer ${i}`).sort());
  });

  it('throws typed errors: a 422 with its problems and a 404 with the request id', async () => {
    const invalid = await trove.search('bolts', { query: 'hex', limit: 500 }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(client.TroveError);
    expect(invalid).toMatchObject({ status: 422, method: 'POST', path: '/api/v1/search/bolts' });
    const { issues, detail } = invalid as InstanceType<typeof client.TroveError>;
    expect(issues).toEqual([expect.objectContaining({ loc: ['body', 'limit'], type: expect.any(String), msg: expect.any(String) })]);
    expect(detail).toMatch(/^body\.limit: /);

    const missing = await trove.records.get(randomUUID()).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(client.TroveError);
    expect(missing).toMatchObject({ status: 404, detail: expect.any(String), issues: [], requestId: expect.any(String) });

    const malformed = await trove.call('GET', '/api/v1/records/{id}', { params: { path: { id: 'not-a-uuid' } } }).catch((e: unknown) => e);
    expect(malformed).toMatchObject({ status: 422, issues: [expect.objectContaining({ loc: ['path', 'id'] })] });
  });
});
