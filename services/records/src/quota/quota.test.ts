import { allowance, collectionLimitReached, growthRefusal, isLimited, recordLimitReached } from './quota';

const holding = (records: number, collections: number, holdsCollection = true) => ({ records, collections, holdsCollection });

describe('plan quotas', () => {
  it('names the plan and its limit in the texts', () => {
    expect(recordLimitReached('free')).toBe('Record limit reached: the free plan allows 50 active records.');
    expect(recordLimitReached('pro')).toBe('Record limit reached: the pro plan allows 100,000 active records.');
    expect(collectionLimitReached('free')).toBe('Collection limit reached: the free plan allows 1 collection.');
    expect(collectionLimitReached('pro')).toBe('Collection limit reached: the pro plan allows 5 collections.');
  });

  it('limits free and pro only', () => {
    expect(['free', 'pro', 'scale', 'enterprise'].map((p) => isLimited(p as never))).toEqual([true, true, false, false]);
  });

  it('allows what is left of the record limit, never less than none', () => {
    expect(allowance('free', holding(45, 1))).toEqual({ allowed: 5, reason: recordLimitReached('free') });
    expect(allowance('free', holding(50, 1)).allowed).toBe(0);
    expect(allowance('free', holding(70, 1)).allowed).toBe(0);
    expect(allowance('scale', holding(10 ** 7, 40)).allowed).toBeNull();
  });

  it('allows nothing in a new collection once the plan’s collections are used, and any held one', () => {
    expect(allowance('free', holding(3, 1, false))).toEqual({ allowed: 0, reason: collectionLimitReached('free') });
    expect(allowance('free', holding(0, 0, false)).allowed).toBe(50);
    expect(allowance('pro', holding(10, 4, false)).allowed).toBe(99_990);
    expect(allowance('pro', holding(10, 5, false)).allowed).toBe(0);
    expect(allowance('pro', holding(10, 5, true)).allowed).toBe(99_990);
  });

  it('refuses growth past a limit, but not a write that leaves a tenant over a limit where it was', () => {
    expect(growthRefusal('free', holding(50, 1), holding(51, 1))).toBe(recordLimitReached('free'));
    expect(growthRefusal('free', holding(49, 1), holding(50, 1))).toBeUndefined();
    expect(growthRefusal('free', holding(10, 1), holding(11, 2))).toBe(collectionLimitReached('free'));
    expect(growthRefusal('free', holding(60, 1), holding(60, 1))).toBeUndefined();
    expect(growthRefusal('enterprise', holding(10 ** 6, 90), holding(10 ** 6 + 5, 95))).toBeUndefined();
  });
});
