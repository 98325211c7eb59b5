import { z } from 'zod';
import { SEARCH_TEXT_MAX, collectionName } from '@trove/contracts';

export const collection = collectionName;

/** `q` of the GET searches: empty (the default) browses, else 1-SEARCH_TEXT_MAX characters after trimming. */
export const qParam = z
  .string()
  .max(SEARCH_TEXT_MAX)
  .transform((v) => v.trim())
  .transform((v) => (v === '' ? undefined : v))
  .optional();
