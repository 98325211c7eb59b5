import { z } from 'zod';
import { collectionName } from '@trove/contracts';

/** The specification's limit on filters per search (as private search). */
export const MAX_FILTERS = 20;
/** The deepest page a search can reach (as private search). */
export const MAX_OFFSET = 10_000;

const scalar = z.union([z.string().max(1_000), z.number(), z.boolean()]);

/** Filters as private search takes them; operators are read (and a bad one named) by the search service. */
export const filters = z
  .record(z.string().min(1).max(200), z.union([scalar, z.array(scalar).min(1).max(100)]))
  .refine((f) => Object.keys(f).length <= MAX_FILTERS, { error: `At most ${MAX_FILTERS} filters are allowed` });

export const query = z.string().max(500).trim().min(1);
export const field = z.string().trim().min(1).max(200);
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
