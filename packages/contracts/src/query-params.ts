import { z } from 'zod';

/**
 * A whole number in a query string, within bounds, `fallback` when absent: digits only, so `1e3` or `5.5` are refused
 * (422 "Input should be a valid integer") rather than coerced.
 */
export function queryInteger(min: number, max: number, fallback: number) {
  const schema = z
    .string()
    .regex(/^\s*\d{1,9}\s*$/, { error: 'Input should be a valid integer' })
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .default(fallback);
  QUERY_INTEGERS.add(schema, { minimum: min, maximum: max, default: fallback });
  return schema;
}

/**
 * The query integers, with what the reference says of each: a query string carries text, but a caller sends a whole
 * number, so the reference describes an integer (and its bounds), not the digits pattern it is read with.
 */
export const QUERY_INTEGERS = z.registry<{ minimum: number; maximum: number; default: number }>();
