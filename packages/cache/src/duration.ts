/**
 * Both adapters accept the same durations: Redis takes whole positive milliseconds only (PX 0 is an error), so a
 * fraction is rounded up and anything not positive is refused in either adapter alike, never silently stored forever.
 */
export function wholeMilliseconds(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) {
    throw new RangeError(`${name} must be a positive number of milliseconds, got ${value}`);
  }
  return Math.ceil(value);
}
