import { filterValue, inferSchema, preview, scorePercent } from './schema';

describe("a collection's inferred schema", () => {
  it('lists the fields of the records, most common first, with their types and a few distinct samples', () => {
    const fields = inferSchema([
      { collection_data: { sku: 'A-1', price: 1.5, tags: ['x'] } },
      { collection_data: { sku: 'A-2', price: 2, size: null } },
      { collection_data: { sku: 'A-2', price: 'n/a' } },
      { collection_data: { sku: 'A-3' } },
    ]);
    expect(fields.map((f) => f.name)).toEqual(['sku', 'price', 'size', 'tags']);
    expect(fields[0]).toEqual({ name: 'sku', types: ['string'], present: 4, samples: ['A-1', 'A-2', 'A-3'] });
    expect(fields[1]!.types).toEqual(['integer', 'number', 'string']);
    expect(fields[2]).toEqual({ name: 'size', types: ['null'], present: 1, samples: [] });
    expect(fields[3]!.types).toEqual(['array']);
  });

  it('reads a filter typed as text by the field type', () => {
    expect(filterValue(' 8 ', ['integer'])).toBe(8);
    expect(filterValue('eight', ['integer'])).toBe('eight');
    expect(filterValue('true', ['boolean'])).toBe(true);
    expect(filterValue('8', ['string'])).toBe('8');
  });

  it('shortens long values and scales scores to the best of the page', () => {
    expect(preview('x'.repeat(100), 10)).toBe(`${'x'.repeat(9)}…`);
    expect(preview({ a: 1 })).toBe('{"a":1}');
    expect(scorePercent(5, 10)).toBe(50);
    expect(scorePercent(5, 0)).toBe(0);
    expect(scorePercent(12, 10)).toBe(100);
  });
});
