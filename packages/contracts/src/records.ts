import { z } from 'zod';

export const RECORD_STATUSES = ['active', 'archived', 'draft'] as const;
export const INDEXING_STATUSES = ['pending', 'processing', 'indexed', 'failed'] as const;
export const VISIBILITIES = ['private', 'public'] as const;
export const SOURCE_TYPES = ['api', 'file_upload', 'webhook', 'connector'] as const;

export const recordStatus = z.enum(RECORD_STATUSES);
export const indexingStatus = z.enum(INDEXING_STATUSES);
export const visibility = z.enum(VISIBILITIES);
export const sourceType = z.enum(SOURCE_TYPES);

/** Collection names: 1-50 letters, digits, `_`, `-`, `.` (design.md). */
export const collectionName = z
  .string()
  .min(1)
  .max(50)
  .regex(/^[A-Za-z0-9_.-]+$/, { error: 'String should contain only letters, digits, _, - and .' });
export const recordName = z.string().min(1).max(500);
export const recordType = z.string().min(1).max(100);
export const collectionData = z.record(z.string(), z.unknown());

/** A full record as services exchange it and as GET /records/{id} answers it. */
export const recordSchema = z.object({
  id: z.string(),
  tenant_id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  description_llm: z.string(),
  collection: z.string(),
  record_type: z.string(),
  collection_data: collectionData,
  indexing_status: indexingStatus,
  status: recordStatus,
  visibility,
  generation: z.number().int(),
  source_name: z.string().nullable(),
  source_id: z.string().nullable(),
  source_url: z.string().nullable(),
  source_type: sourceType,
  version: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type RecordDto = z.infer<typeof recordSchema>;
