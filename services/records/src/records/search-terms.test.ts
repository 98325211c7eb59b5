import { nameQuery, nameVector } from './search-terms';

describe('name search terms', () => {
  it('stores a name as its terms with their positions, a repeated term once', () => {
    expect(nameVector('Hex-Bolt  M8 hex')).toBe("'hex':1,4 'bolt':2 'm8':3");
    expect(nameVector(' -- ')).toBe('');
  });

  it('requires every term and lets the last one be a prefix', () => {
    expect(nameQuery('hex bo')).toBe("'hex' & 'bo':*");
  });

  it('cannot be steered by tsquery operators or quotes', () => {
    expect(nameQuery("bolt' | !nut & (x")).toBe("'bolt' & 'nut' & 'x':*");
  });

  it('gives nothing for a query without letters or digits', () => {
    expect(nameQuery(' !!! ')).toBeUndefined();
  });
});
