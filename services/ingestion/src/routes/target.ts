import { z } from 'zod';
import { collectionName, isStorableText, recordType } from '@trove/contracts';

const notBlank = (s: string) => s.trim().length > 0;
const storable = { error: 'String should not contain NUL characters or unpaired surrogates' };

/** The upload's target from the path: the collection (contracts' collection name) and a record type of 1-100. */
export const targetParams = z.object({
  collection: collectionName,
  record_type: recordType.refine(notBlank, { error: 'String should not be blank' }).refine(isStorableText, storable),
});

/** The optional label of an API upload's records (batch and webhook); file uploads use the file name. */
export const sourceNameQuery = z.object({
  source_name: z.string().min(1).max(200).refine(isStorableText, storable).optional(),
});
