import type { IndexChange, IndexDocument } from '../../port';

export const TENANT = '11111111-1111-4111-8111-111111111111';

export function sampleDocument(overrides: Partial<IndexDocument> = {}): IndexDocument {
  return {
    tenant_id: TENANT,
    record_id: 'r1',
    version: 3,
    collection: 'fasteners',
    record_type: 'product',
    generation: 1,
    name: 'Hex bolt DIN 933 M8',
    description: 'Zinc plated',
    description_llm: 'A hex bolt',
    collection_data: { size: 'M8', length: 40, price: '12.50', stock: true },
    source_type: 'api',
    status: 'active',
    visibility: 'private',
    updated_at: '2025-01-02T03:04:05.000Z',
    ...overrides,
  };
}

export function upsert(overrides: Partial<IndexDocument> = {}, active_generation = 1): IndexChange {
  return { op: 'upsert', document: sampleDocument(overrides), active_generation };
}
