import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CollectionSummary, SearchAnswer } from '@trove/contracts';
import { createLogger } from '@trove/platform';
import { createMcpServer } from '../src/tools/server';
import type { Backend, FullRecord } from '../src/backend';
import { textOf } from './rules';

const ID = '3f2b8c1e-0000-4000-8000-000000000001';
const NOW = '2026-01-01T00:00:00.000Z';

/** A backend holding one record in `fasteners`, counting how often the tools ask for the collection listing. */
function fakeBackend() {
  const calls = { collections: 0 };
  const has = (collection: string | undefined) => collection === 'fasteners';
  const record: FullRecord = { id: ID, name: 'Hex bolt', collection: 'fasteners', record_type: 'product', collection_data: { price: 1 }, status: 'active', created_at: NOW, updated_at: NOW };
  const summary: CollectionSummary = { name: 'fasteners', record_types: ['product'], record_type_counts: { product: 1 }, total_records: 1, indexed: 1, pending: 0, processing: 0, failed: 0 };
  const backend: Backend = {
    async search(collection) {
      const results = has(collection)
        ? [{ record_id: ID, name: 'Hex bolt', score: 1, collection, record_type: 'product', collection_data: { price: 1 }, description_llm: '', description: null, source_type: 'api', updated_at: NOW }]
        : [];
      const metadata = { search_mode: 'fulltext', query_type: 'keyword', processing_time_ms: 1, total_estimate: results.length, cache_hit: false, zero_result_fallback_used: false, timings: { classify_ms: 0, search_ms: 0, hydrate_ms: 0 } };
      return { results, pagination: { offset: 0, limit: 10, has_more: false }, metadata } as SearchAnswer;
    },
    async aggregate(body) {
      const total = has(body.collection as string) ? 1 : 0;
      return { total, groups: total > 0 ? [{ value: 'product', count: 1 }] : [], stats: {} };
    },
    async list(params) {
      const items = has(params.collection) ? [{ id: ID, name: 'Hex bolt', collection: 'fasteners', record_type: 'product', indexing_status: 'indexed', created_at: NOW, updated_at: NOW }] : [];
      return { items, cursor: null, has_more: false };
    },
    async collections() {
      calls.collections++;
      return { collections: [summary] };
    },
    async record(id) {
      return id === ID ? record : undefined;
    },
  };
  return { backend, calls };
}

async function connected(backend: Backend): Promise<Client> {
  const server = createMcpServer(backend, createLogger({ level: 'silent' }));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'trove-test', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

describe('the collection a tool names', () => {
  const calls: Array<[string, Record<string, unknown>]> = [
    ['trove_search', { query: 'bolt' }],
    ['trove_list', {}],
    ['trove_aggregate', {}],
    ['trove_schema', {}],
  ];

  it.each(calls)('%s answers for a collection that exists without reading the collection listing', async (name, args) => {
    const { backend, calls: counted } = fakeBackend();
    const client = await connected(backend);
    const result = await client.callTool({ name, arguments: { collection: 'fasteners', ...args } });
    expect(result.isError).toBeFalsy();
    expect(counted.collections).toBe(0);
    await client.close();
  });

  it.each(calls)('%s reads the listing once when the collection answered nothing, and names the one differing in case', async (name, args) => {
    const { backend, calls: counted } = fakeBackend();
    const client = await connected(backend);
    const result = await client.callTool({ name, arguments: { collection: 'FasTeners', ...args } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('There is no collection "FasTeners"; collection names are case-sensitive: did you mean "fasteners"?');
    expect(counted.collections).toBe(1);
    await client.close();
  });

  it('answers a collection with no twin in another case as before', async () => {
    const { backend } = fakeBackend();
    const client = await connected(backend);
    const result = await client.callTool({ name: 'trove_search', arguments: { collection: 'washers', query: 'bolt' } });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain('No records in collection "washers" match');
    await client.close();
  });
});
