import { monthlySearchCap } from './monthly-cap';

describe('monthlySearchCap', () => {
  it('caps only a plan without overage', () => {
    expect(monthlySearchCap('free')).toBe(50);
    expect(monthlySearchCap('pro')).toBeUndefined();
    expect(monthlySearchCap('scale')).toBeUndefined();
    expect(monthlySearchCap('enterprise')).toBeUndefined();
  });
});
