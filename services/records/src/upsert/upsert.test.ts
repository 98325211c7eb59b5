import { contentHash } from '../records/content-hash';
import { planUpsert, type StoredMatch, type UpsertItem } from './upsert';

function item(name: string, extra: Partial<UpsertItem> = {}): UpsertItem {
  const collection_data = (extra.collection_data as Record<string, unknown> | undefined) ?? { n: name };
  return { name, collection_data, ...extra, content_hash: contentHash({ name, collection_data }) };
}

function stored(id: string, it: UpsertItem, extra: Partial<StoredMatch> = {}): StoredMatch {
  return { id, source_id: it.source_id ?? null, record_type: 'product', content_hash: it.content_hash, ...extra };
}

function plan(items: UpsertItem[], bySource: StoredMatch[] = [], byHash: StoredMatch[] = []) {
  let n = 0;
  return planUpsert({ recordType: 'product', items, bySource, byHash, newId: () => `new-${++n}` });
}

describe('planUpsert with source ids', () => {
  it('creates records for unknown source ids', () => {
    const p = plan([item('a', { source_id: 'A' }), item('b', { source_id: 'B' })]);
    expect(p.results).toEqual([
      { status: 'created', id: 'new-1' },
      { status: 'created', id: 'new-2' },
    ]);
    expect(p.creates.map((c) => [c.id, c.source_id, c.name])).toEqual([
      ['new-1', 'A', 'a'],
      ['new-2', 'B', 'b'],
    ]);
    expect(p.updates).toEqual([]);
  });

  it('skips a stored record with identical content and replaces one whose content differs', () => {
    const same = item('a', { source_id: 'A' });
    const p = plan([same, item('b2', { source_id: 'B', description: 'new' })], [stored('s-a', same), stored('s-b', item('b', { source_id: 'B' }))]);
    expect(p.results).toEqual([
      { status: 'skipped', id: 's-a' },
      { status: 'updated', id: 's-b' },
    ]);
    expect(p.updates).toEqual([expect.objectContaining({ id: 's-b', name: 'b2', collection_data: { n: 'b2' }, description: 'new', source_url: undefined })]);
    expect(p.creates).toEqual([]);
  });

  it('keeps the stored record type of a record it updates', () => {
    const p = plan([item('b2', { source_id: 'B' })], [stored('s-b', item('b', { source_id: 'B' }), { record_type: 'other' })]);
    expect(p.updates[0]).toMatchObject({ id: 's-b', record_type: 'other' });
  });

  it('skips a repeat of an earlier item and lets a later different item win, writing each record once', () => {
    const p = plan([
      item('a', { source_id: 'A', description: 'first' }),
      item('a', { source_id: 'A' }),
      item('a2', { source_id: 'A', source_url: 'u' }),
      item('a3', { source_id: 'A' }),
    ]);
    expect(p.results.map((r) => r.status)).toEqual(['created', 'skipped', 'updated', 'updated']);
    expect(new Set(p.results.map((r) => r.id))).toEqual(new Set(['new-1']));
    expect(p.creates).toEqual([expect.objectContaining({ id: 'new-1', name: 'a3', description: 'first', source_url: 'u' })]);
    expect(p.updates).toEqual([]);
  });

  it('updates a stored record once with the last content when several items change it', () => {
    const p = plan([item('a2', { source_id: 'A' }), item('a3', { source_id: 'A' }), item('a3', { source_id: 'A' })], [stored('s-a', item('a', { source_id: 'A' }))]);
    expect(p.results.map((r) => r.status)).toEqual(['updated', 'updated', 'skipped']);
    expect(p.updates).toHaveLength(1);
    expect(p.updates[0]).toMatchObject({ id: 's-a', name: 'a3' });
  });
});

describe('planUpsert without source ids', () => {
  it('skips content identical to a stored record of the record type, reporting the oldest', () => {
    const a = item('a');
    const p = plan([a, item('b')], [], [stored('old', a), stored('newer', a)]);
    expect(p.results).toEqual([
      { status: 'skipped', id: 'old' },
      { status: 'created', id: 'new-1' },
    ]);
  });

  it('skips an item identical to an earlier item of the chunk', () => {
    const p = plan([item('a'), item('b'), item('a')]);
    expect(p.results).toEqual([
      { status: 'created', id: 'new-1' },
      { status: 'created', id: 'new-2' },
      { status: 'skipped', id: 'new-1' },
    ]);
    expect(p.creates).toHaveLength(2);
  });

  it('matches records that carry a source id, stored or written earlier in the chunk', () => {
    const p = plan([item('a', { source_id: 'A' }), item('a')]);
    expect(p.results).toEqual([
      { status: 'created', id: 'new-1' },
      { status: 'skipped', id: 'new-1' },
    ]);
  });

  it('no longer matches a record an earlier item moved to other content', () => {
    const a = item('a', { source_id: 'A' });
    const p = plan([item('a2', { source_id: 'A' }), item('a')], [stored('s-a', a)], [stored('s-a', a)]);
    expect(p.results).toEqual([
      { status: 'updated', id: 's-a' },
      { status: 'created', id: 'new-1' },
    ]);
  });

  it('ignores records of another record type', () => {
    const a = item('a', { source_id: 'A' });
    const q = plan([item('a2', { source_id: 'A' }), item('a2')], [stored('s-a', a, { record_type: 'other' })]);
    expect(q.results).toEqual([
      { status: 'updated', id: 's-a' },
      { status: 'created', id: 'new-1' },
    ]);
  });
});

describe('planUpsert with a create limit', () => {
  const limited = (items: UpsertItem[], allowed: number, bySource: StoredMatch[] = []) => {
    let n = 0;
    return planUpsert({ recordType: 'product', items, bySource, byHash: [], newId: () => `new-${++n}`, createLimit: { allowed, reason: 'full' } });
  };

  it('refuses new records past the allowance in item order and still updates and skips stored ones', () => {
    const kept = item('k', { source_id: 'K' });
    const p = limited(
      [item('a', { source_id: 'A' }), item('k2', { source_id: 'K' }), item('b', { source_id: 'B' }), kept, item('c')],
      1,
      [stored('s-k', kept)],
    );
    expect(p.results).toEqual([
      { status: 'created', id: 'new-1' },
      { status: 'updated', id: 's-k' },
      { status: 'refused', reason: 'full' },
      { status: 'updated', id: 's-k' },
      { status: 'refused', reason: 'full' },
    ]);
    expect(p.creates.map((c) => c.id)).toEqual(['new-1']);
    expect(p.updates.map((u) => [u.id, u.name])).toEqual([['s-k', 'k']]);
  });

  it('refuses a later item with a refused item’s source id too, as nothing was created for it', () => {
    const p = limited([item('a', { source_id: 'A' }), item('a2', { source_id: 'A' })], 0);
    expect(p.results).toEqual([
      { status: 'refused', reason: 'full' },
      { status: 'refused', reason: 'full' },
    ]);
    expect(p.creates).toEqual([]);
  });
});
