import { randomUUID } from 'node:crypto';
import type { IndexDocument } from '../port';

/** An active, private document of collection `parts` at version 1 and generation 1, with a fresh record id. */
export function doc(tenant_id: string, overrides: Partial<IndexDocument> = {}): IndexDocument {
  return {
    tenant_id,
    record_id: randomUUID(),
    version: 1,
    collection: 'parts',
    record_type: 'product',
    generation: 1,
    name: 'Item',
    description: null,
    description_llm: '',
    collection_data: {},
    source_type: 'api',
    status: 'active',
    visibility: 'private',
    updated_at: '2025-01-01T00:00:00.000Z',
    ...overrides,
  };
}
