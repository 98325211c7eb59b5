import { DEAD_LETTER_DATA_LIMIT, storableCopy, unstorablePart } from './storable';

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

  it('keeps at most about 64 KB of a value, saying how much was left out', () => {
    const wide = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`field${i}`, 'value']));
    const copy = storableCopy({ name: 'wide', ...wide }) as Record<string, unknown>;
    const size = JSON.stringify(copy).length;
    expect(size).toBeGreaterThan(DEAD_LETTER_DATA_LIMIT / 2);
    expect(size).toBeLessThan(DEAD_LETTER_DATA_LIMIT * 3);
    expect(copy.name).toBe('wide');
    expect(copy['…']).toMatch(/^\d+ more fields not kept$/);

    const text = storableCopy({ text: 'x'.repeat(1024 * 1024), after: 1 }) as Record<string, unknown>;
    expect((text.text as string).length).toBeLessThanOrEqual(DEAD_LETTER_DATA_LIMIT);
    expect(text.text).toMatch(/x…$/);
    expect(text['…']).toBe('1 more fields not kept');

    const items = storableCopy(Array.from({ length: 100_000 }, (_, i) => i)) as unknown[];
    expect(items.at(-1)).toMatch(/^… \d+ more items not kept$/);
  });
});
