import { z } from 'zod';
import { collectionName } from '@trove/contracts';

export const collection = collectionName;

/** A query-string integer: digits only, so `1e3` or `5.5` are refused rather than coerced. */
export const intParam = (min: number, max: number, fallback: number) =>
  z
    .string()
    .regex(/^\s*\d{1,9}\s*$/, { error: 'Input should be a valid integer' })
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .default(fallback);

/** `q` of the GET searches: empty (the default) browses, else 1-500 characters after trimming. */
export const qParam = z
  .string()
  .max(500)
  .transform((v) => v.trim())
  .transform((v) => (v === '' ? undefined : v))
  .optional();
