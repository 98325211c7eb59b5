import { matchesData, parseDataFilters } from './data-filters';

const matches = (raw: Parameters<typeof parseDataFilters>[0], data: unknown) => {
  const { filters, problems } = parseDataFilters(raw);
  expect(problems).toEqual([]);
  return matchesData(filters, data);
};

describe('trove_list data filters (the shared filter syntax, matched in memory)', () => {
  it('reads suffixes, comma lists and equality across spellings', () => {
    const data = { price: 4, material: 'steel', tags: ['a', 'b'], in_stock: true, added: '2024-05-01' };
    expect(matches({ price_min: 4, price_lt: '5' }, data)).toBe(true);
    expect(matches({ price_gt: 4 }, data)).toBe(false);
    expect(matches({ material: 'brass, steel' }, data)).toBe(true);
    expect(matches({ material_in: ['brass'] }, data)).toBe(false);
    expect(matches({ tags: 'b', in_stock: 'true' }, data)).toBe(true);
    expect(matches({ added_min: '2024-01-01' }, data)).toBe(true);
  });

  it('trims text values and names a filter left with no value', () => {
    expect(matches({ material: '  steel ' }, { material: 'steel' })).toBe(true);
    expect(parseDataFilters({ material: '  ', price_min: [''], _max: 3 }).problems).toEqual([
      'filter "material": give at least one value',
      'filter "price_min": give at least one value',
      'filter "_max": put a field name before the operator suffix',
    ]);
  });

  it('takes a range bound as search does: one number or an ISO date', () => {
    expect(parseDataFilters({ price_min: 'cheap', price_max: [5], added_min: '2024-13-45' }).problems).toEqual([
      'filter "price_min": a range needs one number (or ISO date), got "cheap"',
      'filter "price_max": a range needs one number (or ISO date), got [5]',
      'filter "added_min": a range needs one number (or ISO date), got "2024-13-45"',
    ]);
  });
});
