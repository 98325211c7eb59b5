import { generatedDescription, matchesQuery } from './collections';

describe('generatedDescription', () => {
  it('says what a collection holds from its public count and record types', () => {
    expect(generatedDescription('valves', 1, ['product'])).toBe('Public collection valves with 1 record of type product.');
    expect(generatedDescription('docs', 3, ['a', 'b', 'c'])).toBe('Public collection docs with 3 records of type a, b and c.');
    expect(generatedDescription('many', 9, ['a', 'b', 'c', 'd', 'e', 'f', 'g'])).toBe('Public collection many with 9 records of type a, b, c, d, e and 2 more.');
  });
});

describe('matchesQuery', () => {
  const c = { collection: 'Valves', record_types: ['product'], record_count: 2, description: 'Brass fittings' };
  it('matches a case-insensitive substring of the name or the description', () => {
    expect(matchesQuery(c, 'valv')).toBe(true);
    expect(matchesQuery(c, 'FITTING')).toBe(true);
    expect(matchesQuery(c, 'pump')).toBe(false);
    expect(matchesQuery(c, undefined)).toBe(true);
  });
});
