import { canonicalJson, contentHash } from './content-hash';

describe('canonicalJson', () => {
  it('sorts keys at every level and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}');
  });

  it('keeps a __proto__ key as data and orders integer-like keys the same whatever order they came in', () => {
    expect(canonicalJson(JSON.parse('{"__proto__":{"x":1},"a":2}'))).toBe('{"__proto__":{"x":1},"a":2}');
    expect(canonicalJson({ b: 1, 10: 'x', 9: 'y' })).toBe(canonicalJson({ 9: 'y', b: 1, 10: 'x' }));
  });

  it('writes scalars as JSON does, including escapes', () => {
    expect(canonicalJson({ s: 'say "hi" \\ 🙂', n: 1.5, t: true, e: '' })).toBe(JSON.stringify({ e: '', n: 1.5, s: 'say "hi" \\ 🙂', t: true }));
  });
});

describe('contentHash', () => {
  const data = { material: 'steel', dims: { l: 20, d: 8 } };

  it('is the same whatever order the keys arrive in', () => {
    expect(contentHash({ name: 'Bolt', collection_data: data })).toBe(contentHash({ name: 'Bolt', collection_data: { dims: { d: 8, l: 20 }, material: 'steel' } }));
  });

  it('differs when the name or any value differs', () => {
    const base = contentHash({ name: 'Bolt', collection_data: data });
    expect(contentHash({ name: 'Bolt ', collection_data: data })).not.toBe(base);
    expect(contentHash({ name: 'Bolt', collection_data: { ...data, dims: { l: 20, d: 9 } } })).not.toBe(base);
    expect(contentHash({ name: 'Bolt', collection_data: { ...data, extra: null } })).not.toBe(base);
    expect(contentHash({ name: 'Bolt', collection_data: {} })).toMatch(/^[0-9a-f]{64}$/);
  });

  it('cannot be fooled by moving text between name and data', () => {
    expect(contentHash({ name: 'a","collection_data":{}', collection_data: {} })).not.toBe(contentHash({ name: 'a', collection_data: {} }));
  });
});
