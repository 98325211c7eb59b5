import { applyUpdate, mergeCollectionData, type EditableRecord } from './update';

const record: EditableRecord = {
  name: 'M8 hex bolt',
  description: null,
  description_llm: 'old',
  collection: 'fasteners',
  record_type: 'product',
  collection_data: { material: 'steel', price: 0.12, size: 'M8' },
  visibility: 'private',
  status: 'active',
  source_name: null,
  source_url: null,
};

describe('mergeCollectionData', () => {
  it('replaces given keys, keeps the others and removes keys given as null', () => {
    expect(mergeCollectionData({ a: 1, b: 2, c: 3 }, { b: 20, c: null, d: 4 })).toEqual({ a: 1, b: 20, d: 4 });
  });

  it('replaces nested objects whole rather than merging them', () => {
    expect(mergeCollectionData({ dims: { l: 1, w: 2 } }, { dims: { l: 5 } })).toEqual({ dims: { l: 5 } });
  });
});

describe('applyUpdate', () => {
  it('applies given fields and rebuilds the generated description', () => {
    const next = applyUpdate(record, { name: 'M10 hex bolt', collection_data: { price: 0.2 } });
    expect(next).toMatchObject({ name: 'M10 hex bolt', collection_data: { material: 'steel', price: 0.2, size: 'M8' } });
    expect(next?.description_llm).toBe('M10 hex bolt is a product in the fasteners collection with material steel, size M8, price 0.2.');
  });

  it('reports an empty update as no change', () => {
    expect(applyUpdate(record, {})).toBeUndefined();
  });

  it('reports an update to the current values as no change', () => {
    expect(applyUpdate(record, { name: 'M8 hex bolt', collection_data: { price: 0.12 }, visibility: 'private' })).toBeUndefined();
  });

  it('clears a description given as null', () => {
    expect(applyUpdate({ ...record, description: 'text' }, { description: null })?.description).toBeNull();
  });

  it('leaves the input record untouched', () => {
    applyUpdate(record, { collection_data: { material: null } });
    expect(record.collection_data).toEqual({ material: 'steel', price: 0.12, size: 'M8' });
  });
});
