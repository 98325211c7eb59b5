/**
 * The UTC day (YYYY-MM-DD) a tallied count of searches is charted on: the day it was flushed (`at`, a few seconds
 * after the searches), kept within its period, so counts of a month flushed just after midnight on the 1st stay on
 * that month's last day (docs/behaviour/portal-usage.md).
 */
export function usageDayOf(period: string, at: string): string {
  const day = new Date(at).toISOString().slice(0, 10);
  if (day.startsWith(`${period}-`)) return day;
  return day < period ? `${period}-01` : lastDayOf(period);
}

function lastDayOf(period: string): string {
  const [year, month] = period.split('-').map(Number) as [number, number];
  // Day 0 of the next month is this month's last day.
  return new Date(Date.UTC(year, month, 0)).toISOString().slice(0, 10);
}

/** Every day of `now`'s month up to and including today (UTC), each with its count (0 where none was counted). */
export function daysSoFar(now: Date, counts: ReadonlyMap<string, number>): Array<{ date: string; count: number }> {
  const days: Array<{ date: string; count: number }> = [];
  for (let d = 1; d <= now.getUTCDate(); d++) {
    const date = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), d)).toISOString().slice(0, 10);
    days.push({ date, count: counts.get(date) ?? 0 });
  }
  return days;
}
