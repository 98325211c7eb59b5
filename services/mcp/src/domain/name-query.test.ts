import { matchesName, parseNameQuery } from './name-query';

const match = (q: string, name: string) => matchesName(parseNameQuery(q)!, name);

describe('trove_list name query', () => {
  it('requires every word and lets the last be a prefix', () => {
    expect(match('hex bo', 'M8 Hex Bolt')).toBe(true);
    expect(match('hex nut', 'M8 Hex Bolt')).toBe(false);
  });

  it('binds OR tighter than the implied AND', () => {
    expect(match('bolt OR screw steel', 'Steel screw')).toBe(true);
    expect(match('bolt OR screw steel', 'Brass screw')).toBe(false);
  });

  it('matches quoted phrases in order and excludes negated words and phrases', () => {
    expect(match('"stainless steel"', 'Bolt stainless steel A2')).toBe(true);
    expect(match('"steel stainless"', 'Bolt stainless steel A2')).toBe(false);
    expect(match('bolt -zinc', 'Bolt zinc plated')).toBe(false);
    expect(match('-"zinc plated"', 'Bolt zinc coated')).toBe(true);
  });

  it('gives nothing for a query without words', () => {
    expect(parseNameQuery(' !!! OR ')).toBeUndefined();
  });
});
