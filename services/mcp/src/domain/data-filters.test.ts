import { parseDataFilters } from './data-filters';

// How the parsed filters match records is records' listing's to say: services/records/src/records/list-filters.test.ts.
describe('trove_list data filters (the shared filter syntax, read leniently)', () => {
  it('trims text values and names a filter left with no value', () => {
    expect(parseDataFilters({ material: '  steel ' })).toEqual({ filters: [{ field: 'material', op: 'eq', value: 'steel' }], problems: [] });
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
