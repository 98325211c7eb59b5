import { oneTypoAway, transpositions, typoBudget, typoDistance, withinTypos } from './typos';

describe('typo rules', () => {
  it('allows one typo from 5 letters, two from 9, a swap at 4, nothing below or with digits', () => {
    expect(['nut', 'bolt', 'washer', 'aluminium', 'm8x40', 'din933'].map((w) => typoBudget(w))).toEqual([0, 1, 1, 2, 0, 0]);
    expect(withinTypos('blot', 'bolt')).toBe(true);
    expect(withinTypos('boat', 'bolt')).toBe(false);
    expect(withinTypos('wahser', 'washer')).toBe(true);
    expect(withinTypos('wahser', 'washers')).toBe(false);
    expect(withinTypos('scerwdirver', 'screwdriver')).toBe(true);
    expect(withinTypos('aluminium', 'aluminium')).toBe(false);
  });

  it('counts a transposition as one typo (optimal string alignment)', () => {
    expect(typoDistance('wahser', 'washer')).toBe(1);
    expect(typoDistance('ca', 'abc')).toBe(3);
    expect(typoDistance('kitten', 'sitting')).toBe(3);
    expect(typoDistance('kitten', 'sitting', 1)).toBe(2);
  });

  it('spells out the words one typo away for an exact lookup', () => {
    expect(transpositions('bolt')).toEqual(['oblt', 'blot', 'botl']);
    const near = oneTypoAway('washer');
    expect(near).toEqual(expect.arrayContaining(['wahser', 'washr', 'washers', 'wasker']));
    expect(near).not.toContain('washer');
    expect(near.every((w) => typoDistance('washer', w) === 1)).toBe(true);
  });
});
