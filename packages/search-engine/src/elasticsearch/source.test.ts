import type { IndexDocument } from '../port';
import { sampleDocument } from './__tests__/fixtures';
import { dataEntries, documentId, equalForms, MAX_ENTRIES, fromSource, numericValue, toStored, tombstoneOf } from './source';

describe('stored documents', () => {
  it('turns collection_data into key/value entries typed as their JSON values', () => {
    expect(dataEntries({ size: 'M8', length: 40, price: '12.50', stock: true })).toEqual([
      { k: 'size', j: '"M8"', s: 'M8', t: 'M8' },
      { k: 'length', j: '40', n: 40, t: '40' },
      { k: 'price', j: '"12.50"', s: '12.50', t: '12.50' },
      { k: 'stock', j: 'true', b: true },
    ]);
  });

  it('gives the distinct scalars of an array entries for equality, nested objects text only, and skips nulls', () => {
    expect(dataEntries({ tags: ['a', 'b', 'a', 2], none: null, nested: { x: 1, y: 'deep' }, list: [{ y: 2 }, true] })).toEqual([
      { k: 'tags', j: '"a"', t: 'a' },
      { k: 'tags', j: '"b"', t: 'b' },
      { k: 'tags', j: '2', t: '2' },
      { k: 'nested', t: '1 deep' },
      { k: 'list', j: 'true' },
      { k: 'list', t: '2' },
    ]);
  });

  it('cleans text PostgreSQL cannot store, so both engines give back the same document', () => {
    const stored = toStored(sampleDocument({ name: 'Bolt\u0000 M8', collection_data: { note: 'a\u0000b' } }));
    expect(stored.name).toBe('Bolt M8');
    expect(stored.collection_data).toEqual({ note: 'ab' });
  });

  it('keeps at most MAX_ENTRIES entries, below the nested objects limit Elasticsearch enforces', () => {
    const entries = dataEntries({ first: 'x', many: Array.from({ length: 20_000 }, (_, i) => i), after: 'y' });
    expect(entries).toHaveLength(MAX_ENTRIES);
    expect(entries[0]).toEqual({ k: 'first', j: '"x"', s: 'x', t: 'x' });
  });

  it('reads numbers and plain numerals as numbers, nothing else', () => {
    expect(numericValue(7)).toBe(7);
    expect(numericValue(' -1.5e3 ')).toBe(-1500);
    expect(numericValue('.5')).toBe(0.5);
    expect(numericValue('12 mm')).toBeUndefined();
    expect(numericValue('0x10')).toBeUndefined();
    expect(numericValue('')).toBeUndefined();
    expect(numericValue(true)).toBeUndefined();
  });

  it('spells an equality value every way a stored value may hold it', () => {
    expect(equalForms('10')).toEqual(['"10"', '10']);
    expect(equalForms('10.0')).toEqual(['"10.0"', '10']);
    expect(equalForms(10)).toEqual(['10', '"10"']);
    expect(equalForms('true')).toEqual(['"true"', 'true']);
    expect(equalForms(false)).toEqual(['false', '"false"']);
    expect(equalForms('M8')).toEqual(['"M8"']);
  });

  it('stores only the document fields plus what matching needs, whatever else the object carries', () => {
    const document = { ...sampleDocument(), stray: 'not mapped' } as IndexDocument;
    const stored = toStored(document);
    expect(stored).not.toHaveProperty('stray');
    expect(stored.tombstone).toBe(false);
    expect(stored.identifiers).toContain('DIN933');
    expect(stored.data_text).toContain('M8');
    expect(stored.data).toHaveLength(4);
    expect(fromSource(stored)).toEqual(sampleDocument());
  });

  it('writes tombstones that carry the version and nothing searchable', () => {
    expect(tombstoneOf('t', 'r', 9)).toEqual({ tenant_id: 't', record_id: 'r', version: 9, tombstone: true });
    expect(documentId('t', 'r')).toBe('t:r');
  });
});
