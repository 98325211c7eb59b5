import { daysSoFar, usageDayOf } from './usage-days';

describe('the day a search count is charted on', () => {
  it('is the UTC day it was tallied, within its period', () => {
    expect(usageDayOf('2026-11', '2026-11-28T01:59:20.000Z')).toBe('2026-11-28');
    expect(usageDayOf('2026-11', '2026-11-30T23:59:59.999Z')).toBe('2026-11-30');
  });

  it("keeps a month's count tallied just after midnight on that month's last day (or first, for a clock behind)", () => {
    expect(usageDayOf('2026-11', '2026-12-01T00:00:03.000Z')).toBe('2026-11-30');
    expect(usageDayOf('2024-02', '2024-03-01T00:00:01.000Z')).toBe('2024-02-29');
    expect(usageDayOf('2026-12', '2027-01-01T00:00:02.000Z')).toBe('2026-12-31');
    expect(usageDayOf('2026-12', '2026-11-30T23:59:59.000Z')).toBe('2026-12-01');
  });
});

describe('the days of the month so far', () => {
  it('lists every day from the 1st to today, zeros included', () => {
    const days = daysSoFar(new Date('2026-11-04T12:00:00Z'), new Map([['2026-11-02', 7], ['2026-10-31', 3]]));
    expect(days).toEqual([
      { date: '2026-11-01', count: 0 },
      { date: '2026-11-02', count: 7 },
      { date: '2026-11-03', count: 0 },
      { date: '2026-11-04', count: 0 },
    ]);
    expect(daysSoFar(new Date('2026-11-01T00:00:00Z'), new Map())).toEqual([{ date: '2026-11-01', count: 0 }]);
  });
});
