import { formatFilters, parseFilters, withRecordTypeFilters } from './search';

describe('formatFilters', () => {
  it('writes filters that parseFilters reads back as the same filters', () => {
    const raw = {
      material: 'steel,brass',
      material_in: ['zinc'],
      finish: 'matt',
      price_min: '2',
      price_max: 10,
      weight_gt: 1.5,
      weight_lt: 9,
      added_min: '2024-01-01',
      size_min_in: ['a'],
      in_stock: true,
    };
    const { filters, issues } = parseFilters(raw);
    expect(issues).toEqual([]);
    expect(filters).toHaveLength(10);
    expect(parseFilters(formatFilters(filters))).toEqual({ filters: expect.arrayContaining(filters), issues: [] });
    expect(parseFilters(formatFilters(filters)).filters).toHaveLength(10);
  });
});

describe('withRecordTypeFilters', () => {
  it('puts entity_type equality on the record type and refuses a range on it', () => {
    const { filters } = parseFilters({ entity_type: 'bolt,nut', material: 'steel', entity_type_min: 3 });
    const typed = withRecordTypeFilters(filters);
    expect(typed.filters).toEqual([
      { field: 'entity_type', op: 'in', value: ['bolt', 'nut'], on: 'record_type' },
      { field: 'material', op: 'eq', value: 'steel' },
    ]);
    expect(typed.issues).toEqual([expect.objectContaining({ key: 'entity_type_min', type: 'value_error' })]);
  });
});
