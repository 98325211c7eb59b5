import { filterableFields } from './fields';

describe('filterableFields', () => {
  it('lists top-level fields with inferred types and up to four distinct samples, most common first', () => {
    const fields = filterableFields([
      { price: 1.5, colour: 'red', tags: ['a', 'b'], released: '2024-01-02', ok: true },
      { price: 2, colour: 'blue', extra: null },
      { price: 3, colour: 'red' },
      { price: 4, colour: 'green' },
      { price: 5, colour: 'black' },
    ]);
    expect(fields).toEqual([
      'colour (string): red, blue, green, black',
      'price (number): 1.5, 2, 3, 4',
      'ok (boolean): true',
      'released (date): 2024-01-02',
      'tags (string[]): a, b',
    ]);
  });

  it('joins differing types and cuts long samples', () => {
    expect(filterableFields([{ size: 10 }, { size: 'XL' }])).toEqual(['size (number|string): 10, XL']);
    expect(filterableFields([{ note: 'x'.repeat(100) }])[0]).toBe(`note (string): ${'x'.repeat(39)}…`);
    expect(filterableFields([{ dims: { w: 1 } }])).toEqual(['dims (object): {"w":1}']);
  });
});
