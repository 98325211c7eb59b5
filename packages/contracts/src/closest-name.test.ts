import { closestName } from './closest-name';

describe('closestName', () => {
  const search = ['collection', 'query', 'q', 'filters', 'sort', 'limit', 'offset', 'format'];

  it.each([
    ['fliters', 'filters'],
    ['filter', 'filters'],
    ['limt', 'limit'],
    ['Collection', 'collection'],
    ['fromat', 'format'],
    ['ofset', 'offset'],
  ])('reads %s as %s (a transposition, a missing or extra letter, another case)', (typo, meant) => {
    expect(closestName(typo, search)).toBe(meant);
  });

  it('ignores separators and case: groupBy and groupby mean group_by', () => {
    expect(closestName('groupBy', ['collection', 'filters', 'group_by', 'stats'])).toBe('group_by');
    expect(closestName('recordtype', ['collection', 'record_type'])).toBe('record_type');
  });

  it('reads a word of a longer name given alone as that name, when only one has it', () => {
    expect(closestName('id', ['record_id', 'format'])).toBe('record_id');
    expect(closestName('type', ['collection', 'record_type'])).toBe('record_type');
    expect(closestName('id', ['record_id', 'upload_id'])).toBeUndefined();
  });

  it('guesses nothing when no name is close', () => {
    expect(closestName('colour', search)).toBeUndefined();
    expect(closestName('xyz', search)).toBeUndefined();
    expect(closestName('x', search)).toBeUndefined();
    expect(closestName('anything', [])).toBeUndefined();
  });
});
