import { storableCopy, unstorablePart } from './storable';

describe('storable', () => {
  it('finds nothing wrong with ordinary nested data, emoji included', () => {
    expect(unstorablePart({ a: [1, { b: 'ボルト 🙂' }], c: null }, 'collection_data')).toBeUndefined();
  });

  it('names the key path of a NUL character', () => {
    expect(unstorablePart({ a: [1, { b: 'x\u0000' }] }, 'collection_data')).toMatch(/^collection_data\.a\[1\]\.b contains a NUL/);
  });

  it('copies a value into one jsonb can store, replacing what it cannot', () => {
    expect(storableCopy({ 'k\u0000': ['a\uDC00b', 1, true, null] })).toEqual({ 'k\uFFFD': ['a\uFFFDb', 1, true, null] });
  });
});
