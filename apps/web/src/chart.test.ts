import { bars, share } from './chart';

describe('the usage charts', () => {
  it('draws each bar as its share of the largest', () => {
    expect(bars([{ label: 'a', value: 5 }, { label: 'b', value: 10 }, { label: 'c', value: 0 }]).map((b) => b.percent)).toEqual([50, 100, 0]);
    expect(bars([{ label: 'a', value: 0 }])[0]!.percent).toBe(0);
    expect(bars([])).toEqual([]);
  });

  it('shows how much of a limit is used, capped at 100, and nothing for an unlimited one', () => {
    expect(share(250, 1000)).toBe(25);
    expect(share(1500, 1000)).toBe(100);
    expect(share(3, null)).toBeUndefined();
    expect(share(0, 0)).toBe(0);
  });
});
