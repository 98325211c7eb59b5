import { COLLECTION_DATA_MAX_FIELDS, FIELD_NAME_MAX_LENGTH, fieldLimitProblem, isStorableText, replaceUnstorable } from './storable';

describe('storable text', () => {
  it('accepts any text PostgreSQL stores, paired surrogates (emoji) included', () => {
    for (const text of ['', 'plain', 'ünïcødé', 'emoji 😀 here', '\t\n\\']) expect(isStorableText(text)).toBe(true);
  });

  it('refuses NUL characters and unpaired surrogates wherever they sit', () => {
    for (const text of ['a\u0000b', '\u0000', 'cut \uD83D', '\uDE00 alone', 'x\uD83Dy']) expect(isStorableText(text)).toBe(false);
  });

  it('replaces each unstorable character and leaves storable text as it is', () => {
    const mark = (c: string) => (c === '\u0000' ? '' : '\uFFFD');
    expect(replaceUnstorable('a\u0000b \uD83D 😀', mark)).toBe('ab \uFFFD 😀');
    const clean = 'nothing to do 😀';
    expect(replaceUnstorable(clean, mark)).toBe(clean);
  });
});

describe('collection_data field limits', () => {
  const fields = (n: number, prefix = 'f') => Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, i]));

  it('accepts up to 1,000 fields counted over every nested level', () => {
    expect(COLLECTION_DATA_MAX_FIELDS).toBe(1000);
    expect(fieldLimitProblem(fields(1000))).toBeUndefined();
    // 1 + 499 nested + 500 top-level keys.
    expect(fieldLimitProblem({ nested: fields(499), ...fields(500, 'top') })).toBeUndefined();
  });

  it('refuses a 1,001st field, wherever it sits', () => {
    expect(fieldLimitProblem(fields(1001))).toEqual({ reason: 'too_many_fields', path: [] });
    expect(fieldLimitProblem({ nested: { deeper: fields(999) } })).toEqual({ reason: 'too_many_fields', path: [] });
    expect(fieldLimitProblem(fields(100_000))).toEqual({ reason: 'too_many_fields', path: [] });
  });

  it('counts the objects of an array once per key path, as a search index maps them', () => {
    const items = Array.from({ length: 2000 }, (_, i) => ({ sku: `S-${i}`, price: i }));
    expect(fieldLimitProblem({ items })).toBeUndefined();
    const distinct = Array.from({ length: 1001 }, (_, i) => ({ [`k${i}`]: i }));
    expect(fieldLimitProblem({ items: distinct })).toEqual({ reason: 'too_many_fields', path: [] });
  });

  it('refuses a field name longer than 256 characters and names where it is', () => {
    expect(FIELD_NAME_MAX_LENGTH).toBe(256);
    expect(fieldLimitProblem({ ['k'.repeat(256)]: 1 })).toBeUndefined();
    const long = 'k'.repeat(257);
    expect(fieldLimitProblem({ [long]: 1 })).toEqual({ reason: 'name_too_long', path: [long] });
    expect(fieldLimitProblem({ a: [{ ok: 1 }, { b: { [long]: 1 } }] })).toEqual({ reason: 'name_too_long', path: ['a', 1, 'b', long] });
  });
});
