import { ChunkScheduler, MAX_CHUNKS_IN_FLIGHT, type Pending } from './chunk-scheduler';

function item(index: number, sourceId?: string, text?: string): Pending {
  const record = { name: `r${index}`, ...(sourceId === undefined ? {} : { source_id: sourceId }), ...(text === undefined ? {} : { description: text }) };
  return { index, raw: record, record };
}

/** A write that stays open until the test ends it, remembering which chunks were being written at the same time. */
class Writes {
  readonly started: number[][] = [];
  private readonly open = new Map<number, { resolve: () => void; reject: (err: Error) => void }>();
  maxOpen = 0;

  readonly write = (chunk: Pending[]): Promise<void> => {
    const n = this.started.push(chunk.map((p) => p.index)) - 1;
    return new Promise<void>((resolve, reject) => {
      this.open.set(n, { resolve, reject });
      this.maxOpen = Math.max(this.maxOpen, this.open.size);
    });
  };

  end(n: number, err?: Error): void {
    const w = this.open.get(n)!;
    this.open.delete(n);
    if (err) w.reject(err);
    else w.resolve();
  }

  endAll(): void {
    for (const n of [...this.open.keys()]) this.end(n);
  }
}

/** Whether a promise has settled once pending callbacks have run. */
async function hasSettled(p: Promise<unknown>): Promise<boolean> {
  let settled = false;
  p.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise((r) => setImmediate(r));
  return settled;
}

describe('ChunkScheduler', () => {
  it('sends chunks of the chunk size in order and the shorter rest when finished', async () => {
    const writes = new Writes();
    const chunks = new ChunkScheduler({ chunkSize: 2, write: async (c) => void writes.started.push(c.map((p) => p.index)) });
    for (let i = 0; i < 5; i++) await chunks.add(item(i));
    expect(writes.started).toEqual([[0, 1], [2, 3]]);
    await chunks.finish();
    expect(writes.started).toEqual([[0, 1], [2, 3], [4]]);
  });

  it('asks a chunk-size function again for every chunk', async () => {
    const writes = new Writes();
    let size = 3;
    const s = new ChunkScheduler({ chunkSize: () => size, write: (c) => writes.write(c).then(() => undefined) });
    for (let i = 0; i < 3; i++) await s.add(item(i, `s${i}`));
    size = 2;
    for (let i = 3; i < 7; i++) await s.add(item(i, `s${i}`));
    writes.endAll();
    const finished = s.finish();
    writes.endAll();
    await finished;
    expect(writes.started).toEqual([[0, 1, 2], [3, 4], [5, 6]]);
  });

  it('sends a chunk early when the next record would take its JSON over the character bound, and a larger record alone', async () => {
    const writes = new Writes();
    const chunks = new ChunkScheduler({ chunkSize: 100, maxCharacters: 200, write: async (c) => void writes.started.push(c.map((p) => p.index)) });
    await chunks.add(item(0, undefined, 'a'.repeat(80)));
    await chunks.add(item(1, undefined, 'b'.repeat(80)));
    await chunks.add(item(2, undefined, 'c'.repeat(500)));
    await chunks.add(item(3));
    await chunks.finish();
    expect(writes.started).toEqual([[0], [1], [2], [3]]);
  });

  it('writes up to MAX_CHUNKS_IN_FLIGHT chunks at once when they share no source id, and holds the reader back after that', async () => {
    const writes = new Writes();
    const chunks = new ChunkScheduler({ chunkSize: 1, write: writes.write });
    for (let i = 0; i < MAX_CHUNKS_IN_FLIGHT; i++) await chunks.add(item(i, `S-${i}`));
    expect(writes.started).toHaveLength(MAX_CHUNKS_IN_FLIGHT);

    const next = chunks.add(item(MAX_CHUNKS_IN_FLIGHT, `S-${MAX_CHUNKS_IN_FLIGHT}`));
    expect(await hasSettled(next)).toBe(false);
    writes.end(0);
    await next;
    expect(writes.started).toHaveLength(MAX_CHUNKS_IN_FLIGHT + 1);
    expect(writes.maxOpen).toBe(MAX_CHUNKS_IN_FLIGHT);

    const finished = chunks.finish();
    expect(await hasSettled(finished)).toBe(false);
    writes.endAll();
    await finished;
  });

  it('writes a chunk only after an earlier one that shares a source id with it has ended', async () => {
    const writes = new Writes();
    const chunks = new ChunkScheduler({ chunkSize: 1, write: writes.write });
    await chunks.add(item(0, 'S-a'));
    const second = chunks.add(item(1, 'S-a'));
    expect(await hasSettled(second)).toBe(false);
    expect(writes.started).toEqual([[0]]);
    writes.end(0);
    await second;
    expect(writes.started).toEqual([[0], [1]]);
    writes.endAll();
    await chunks.finish();
  });

  it('writes a chunk holding a record without a source id alone', async () => {
    const writes = new Writes();
    const chunks = new ChunkScheduler({ chunkSize: 1, write: writes.write });
    await chunks.add(item(0, 'S-a'));
    const second = chunks.add(item(1));
    expect(await hasSettled(second)).toBe(false);
    writes.end(0);
    await second;
    const third = chunks.add(item(2, 'S-c'));
    expect(await hasSettled(third)).toBe(false);
    writes.end(1);
    await third;
    writes.endAll();
    await chunks.finish();
    expect(writes.maxOpen).toBe(1);
  });

  it('rejects finish when a write failed, and settles only once every write has ended', async () => {
    const writes = new Writes();
    const chunks = new ChunkScheduler({ chunkSize: 1, write: writes.write });
    await chunks.add(item(0, 'S-0'));
    await chunks.add(item(1, 'S-1'));
    writes.end(0, new Error('records answered 500'));
    await expect(chunks.finish()).rejects.toThrow('records answered 500');

    const settled = chunks.settled();
    expect(await hasSettled(settled)).toBe(false);
    writes.end(1);
    await settled;
  });
});
