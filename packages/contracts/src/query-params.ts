import { z } from 'zod';

/**
 * A whole number in a query string, within bounds, `fallback` when absent: digits only, so `1e3` or `5.5` are refused
 * (422 "Input should be a valid integer") rather than coerced.
 */
export function queryInteger(min: number, max: number, fallback: number) {
  return z
    .string()
    .regex(/^\s*\d{1,9}\s*$/, { error: 'Input should be a valid integer' })
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .default(fallback);
}
