/** A horizontal bar chart's bars: each value's share of the largest, for drawing in SVG without a library. */
export interface Bar {
  label: string;
  value: number;
  /** 0-100: its length, as a percentage of the widest bar. */
  percent: number;
}

export function bars(items: ReadonlyArray<{ label: string; value: number }>): Bar[] {
  const max = Math.max(0, ...items.map((i) => i.value));
  return items.map((i) => ({ ...i, percent: max > 0 ? Math.round((Math.max(i.value, 0) / max) * 100) : 0 }));
}

/** How much of a limit is used, 0-100, or undefined when unlimited. */
export function share(used: number, included: number | null): number | undefined {
  if (included === null) return undefined;
  if (included <= 0) return used > 0 ? 100 : 0;
  return Math.min(100, Math.round((used / included) * 100));
}
