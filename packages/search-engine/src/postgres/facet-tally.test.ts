import { FacetTally } from './facet-tally';

describe('facet tally', () => {
  it('counts a document once per distinct value, an array once per distinct element, and only scalars', () => {
    const tally = new FacetTally(['tags', 'size']);
    tally.add([['m8', 'zinc', 'm8'], 8]);
    tally.add([['m8', { nested: true }, null], 'large']);
    tally.add([undefined, null]);
    tally.add(['zinc', true]);
    expect(tally.answers(20, false)).toEqual({
      tags: { values: [{ value: 'm8', count: 2 }, { value: 'zinc', count: 2 }] },
      size: { values: [{ value: 'large', count: 1 }, { value: 8, count: 1 }, { value: true, count: 1 }], stats: { count: 1, min: 8, max: 8, avg: 8 } },
    });
  });

  it('orders ties as jsonb does (strings by code point, then numbers, then booleans) and keeps the limit', () => {
    const tally = new FacetTally(['v']);
    for (const v of [false, 10, 9, 'b', 'B', 'a', 'é', true]) tally.add([v]);
    expect(tally.answers(7, false).v!.values.map((x) => x.value)).toEqual(['B', 'a', 'b', 'é', 9, 10, false]);
  });

  it('weighs sampled rows, rounds the counts and says they are estimated', () => {
    const tally = new FacetTally(['brand', 'price']);
    tally.add(['Acme', 10]);
    tally.add(['Zenith', 30], 2.5);
    expect(tally.answers(20, true)).toEqual({
      brand: { values: [{ value: 'Zenith', count: 3 }, { value: 'Acme', count: 1 }], estimated: true },
      price: { values: [{ value: 30, count: 3 }, { value: 10, count: 1 }], stats: { count: 4, min: 10, max: 30, avg: 85 / 3.5 }, estimated: true },
    });
  });
});
