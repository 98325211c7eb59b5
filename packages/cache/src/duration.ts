import type { Hit } from './port';

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

/** The hit's window length in whole milliseconds; refuses a bad length or initial count as Redis would. */
export function validHit(hit: Hit): number {
  const length = wholeMilliseconds('windowMs', hit.windowMs);
  const initial = hit.initial ?? 0;
  if (!Number.isSafeInteger(initial) || initial < 0) throw new RangeError(`initial must be a whole number of at least 0, got ${initial}`);
  return length;
}
