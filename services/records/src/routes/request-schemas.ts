import { z } from 'zod';
import { collectionData, recordDescription, recordName, recordType, sourceName, sourceUrl, visibility } from '@trove/contracts';
import { fields } from '@trove/platform';

/** Ids a bulk call may name at once (the specification's bulk-visibility limit, applied to every bulk call). */
export const BULK_LIMIT = 1000;

export const recordId = fields.uuid;
export const idParams = z.object({ id: recordId });

export const recordIds = z.array(recordId).min(1).max(BULK_LIMIT);

/**
 * What PATCH /records/{id} and PATCH /records/bulk may change. `collection` and `source_id` identify a record's place
 * and origin and are not changeable; unknown fields are refused rather than ignored, so a typo never passes silently.
 */
export const recordUpdate = z.strictObject({
  name: recordName.optional(),
  description: recordDescription.nullable().optional(),
  record_type: recordType.optional(),
  collection_data: collectionData.optional(),
  visibility: visibility.optional(),
  status: z.enum(['active', 'draft']).optional(),
  source_name: sourceName.nullable().optional(),
  source_url: sourceUrl.nullable().optional(),
});
