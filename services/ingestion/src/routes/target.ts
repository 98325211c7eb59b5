import { z } from 'zod';
import { collectionName, recordType, sourceName } from '@trove/contracts';

/** The upload's target from the path: the collection and the record type, as records takes them. */
export const targetParams = z.object({
  collection: collectionName,
  record_type: recordType,
});

/** The optional label of an API upload's records (batch and webhook); file uploads use the file name. */
export const sourceNameQuery = z.object({
  source_name: sourceName.min(1).optional(),
});
