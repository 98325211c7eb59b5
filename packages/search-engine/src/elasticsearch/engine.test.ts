import { BaseConnection, Client, type ConnectionRequestParams } from '@elastic/elasticsearch';
import type { SearchQuery } from '../port';
import { TENANT, upsert } from './__tests__/fixtures';
import { ElasticsearchEngine } from './engine';

/**
 * The engine's conversation with Elasticsearch, against a stand-in connection that records each HTTP request and
 * answers from a script: which endpoints it calls, in what order, with which parameters. Whether Elasticsearch
 * answers as the engine expects is the contract suite's job (elasticsearch.contract.test.ts, with ELASTICSEARCH_URL).
 */

interface Sent {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
}

type Answer = { status?: number; body: unknown };
let sent: Sent[] = [];
let answer: (request: Sent) => Answer = () => ({ body: {} });

class ScriptedConnection extends BaseConnection {
  override async request(params: ConnectionRequestParams): Promise<any> {
    const raw = typeof params.body === 'string' ? params.body : params.body ? String(params.body) : '';
    const body = params.path.endsWith('/_bulk')
      ? raw
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line))
      : raw
        ? JSON.parse(raw)
        : undefined;
    const request = { method: params.method, path: params.path, query: new URLSearchParams(params.querystring ?? ''), body };
    sent.push(request);
    const { status = 200, body: answerBody } = answer(request);
    return {
      statusCode: status,
      headers: { 'content-type': 'application/json', 'x-elastic-product': 'Elasticsearch' },
      body: JSON.stringify(answerBody),
    };
  }
}

function engine(): ElasticsearchEngine {
  const client = new Client({ node: 'http://elasticsearch.invalid:9200', Connection: ScriptedConnection, maxRetries: 0 });
  return new ElasticsearchEngine({ node: 'unused', indexPrefix: 'unit', client });
}

const hits = (total: number, sources: object[] = []) => ({
  took: 1,
  timed_out: false,
  _shards: { total: 1, successful: 1, failed: 0 },
  hits: {
    total: { value: total, relation: 'eq' },
    max_score: null,
    hits: sources.map((s, i) => ({ _index: 'unit-records', _id: String(i), _score: 2, _source: s })),
  },
});

const byScroll = { took: 1, timed_out: false, total: 0, deleted: 0, created: 0, updated: 0, failures: [] };

beforeEach(() => {
  sent = [];
  answer = () => ({ body: {} });
});

describe('ElasticsearchEngine against a scripted connection', () => {
  it('puts the three templates and creates the indexes, updating the mapping of one that exists', async () => {
    answer = (r) =>
      r.method === 'PUT' && r.path === '/unit-records'
        ? { status: 400, body: { error: { type: 'resource_already_exists_exception', reason: 'exists' }, status: 400 } }
        : { body: { acknowledged: true } };
    await engine().init();
    expect(sent.map((r) => `${r.method} ${r.path}`)).toEqual([
      'PUT /_index_template/unit-records',
      'PUT /_index_template/unit-public',
      'PUT /_index_template/unit-generations',
      'PUT /unit-records',
      'PUT /unit-records/_mapping',
      'PUT /unit-public',
      'PUT /unit-generations',
    ]);
    expect(sent[0]!.body).toMatchObject({ index_patterns: ['unit-records'], template: { mappings: { dynamic: 'strict' } } });
    expect(sent[4]!.body).toMatchObject({ dynamic: 'strict', properties: { data: { type: 'nested' } } });
  });

  it('applies a batch with one realtime mget and one bulk request that waits for refresh', async () => {
    answer = (r) => {
      if (r.path === '/_mget') {
        return {
          body: {
            docs: [
              { _index: 'unit-records', _id: `${TENANT}:r1`, found: false },
              { _index: 'unit-generations', _id: `${TENANT}:fasteners`, found: true, _version: 1, _source: { active_generation: 1 } },
            ],
          },
        };
      }
      return {
        body: {
          errors: false,
          took: 1,
          items: [
            { index: { _index: 'unit-records', _id: `${TENANT}:r1`, status: 201, result: 'created' } },
            { index: { _index: 'unit-public', _id: `${TENANT}:r1`, status: 201, result: 'created' } },
          ],
        },
      };
    };
    const outcomes = await engine().apply([upsert({ record_id: 'r1', visibility: 'public' })]);
    expect(outcomes).toEqual([{ record_id: 'r1', version: 3, status: 'indexed' }]);
    expect(sent.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /_mget', 'POST /_bulk']);
    expect(sent[0]!.query.get('realtime')).toBe('true');
    expect(sent[1]!.query.get('refresh')).toBe('wait_for');
    const lines = sent[1]!.body as object[];
    expect(lines).toHaveLength(4);
    expect(lines[0]).toEqual({
      index: { _index: 'unit-records', _id: `${TENANT}:r1`, routing: TENANT, version: 3, version_type: 'external' },
    });
    expect(lines[2]).toEqual({
      index: { _index: 'unit-public', _id: `${TENANT}:r1`, routing: TENANT, version: 3, version_type: 'external' },
    });
  });

  it('publishes a raised generation, then records it with the generation as external version', async () => {
    answer = (r) => {
      if (r.path === '/_mget') return { body: { docs: [{ _index: 'unit-records', _id: `${TENANT}:r1`, found: false }] } };
      if (r.path === '/_bulk') {
        return { body: { errors: false, took: 1, items: [{ index: { _index: 'unit-records', status: 201, result: 'created' } }] } };
      }
      if (r.path.endsWith('/_doc/' + encodeURIComponent(`${TENANT}:fasteners`))) {
        return { status: 409, body: { error: { type: 'version_conflict_engine_exception', reason: 'newer' }, status: 409 } };
      }
      return { body: byScroll };
    };
    const outcomes = await engine().apply([upsert({ record_id: 'r1', generation: 2 }, 2)]);
    expect(outcomes.map((o) => o.status)).toEqual(['indexed']);
    expect(sent.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /_mget',
      'POST /_bulk',
      'POST /_reindex',
      'POST /unit-public/_delete_by_query',
      `PUT /unit-generations/_doc/${encodeURIComponent(`${TENANT}:fasteners`)}`,
    ]);
    expect(sent[2]!.body).toMatchObject({
      source: { index: 'unit-records' },
      dest: { index: 'unit-public', version_type: 'external' },
      conflicts: 'proceed',
    });
    expect(sent[2]!.query.get('refresh')).toBe('true');
    expect(sent[3]!.query.get('routing')).toBe(TENANT);
    expect(sent[3]!.body).toMatchObject({ query: { bool: { filter: expect.arrayContaining([{ range: { generation: { lt: 2 } } }]) } } });
    expect(sent[4]!.query.get('version')).toBe('2');
    expect(sent[4]!.query.get('version_type')).toBe('external');
    expect(sent[4]!.body).toEqual({ tenant_id: TENANT, collection: 'fasteners', active_generation: 2 });
  });

  it('swaps to the higher of the held and the asked generation and removes older generations', async () => {
    answer = (r) =>
      r.method === 'GET'
        ? { body: { _index: 'unit-generations', _id: 'x', found: true, _version: 3, _source: { active_generation: 3 } } }
        : r.method === 'PUT'
          ? { body: { result: 'created', _id: 'x', _index: 'unit-generations', _version: 3 } }
          : { body: byScroll };
    await engine().swapGeneration(TENANT, 'fasteners', 2);
    expect(sent.map((r) => `${r.method} ${r.path.replace(encodeURIComponent(`${TENANT}:fasteners`), 'ID')}`)).toEqual([
      'GET /unit-generations/_doc/ID',
      'POST /_reindex',
      'POST /unit-public/_delete_by_query',
      'PUT /unit-generations/_doc/ID',
      'POST /unit-records/_delete_by_query',
    ]);
    expect(sent[1]!.body).toMatchObject({ source: { query: { bool: { filter: expect.arrayContaining([{ term: { generation: 3 } }]) } } } });
    expect(sent[4]!.body).toMatchObject({ query: { bool: { filter: expect.arrayContaining([{ range: { generation: { lt: 3 } } }]) } } });
  });

  it('fails a swap whose copy reported failures, before the generation is recorded', async () => {
    answer = (r) =>
      r.method === 'GET'
        ? { status: 404, body: { _index: 'unit-generations', _id: 'x', found: false } }
        : { body: { ...byScroll, failures: [{ cause: { type: 'mapper_parsing_exception', reason: 'bad' }, id: 'x', index: 'i', status: 400 }] } };
    await expect(engine().swapGeneration(TENANT, 'fasteners', 2)).rejects.toThrow(
      'publishing the active generation failed: mapper_parsing_exception: bad',
    );
    expect(sent.some((r) => r.method === 'PUT')).toBe(false);
  });

  const keyword: SearchQuery = {
    scope: { kind: 'private', tenant_id: TENANT, collection: 'fasteners' },
    text: { type: 'keyword', query: 'hexagn', identifiers: [] },
    filters: [],
    limit: 10,
    offset: 0,
  };

  it('searches routed to the tenant and falls back to fuzzy names when nothing matched', async () => {
    let calls = 0;
    answer = () => (calls++ === 0 ? { body: hits(0) } : { body: hits(1, [{ name: 'Hexagon bolt', record_id: 'r1' }]) });
    const result = await engine().search(keyword);
    expect(sent.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /unit-records/_search', 'POST /unit-records/_search']);
    expect(sent[0]!.query.get('routing')).toBe(TENANT);
    expect(JSON.stringify(sent[1]!.body)).toContain('"fuzziness":"AUTO"');
    expect(result.fuzzy).toBe(true);
    expect(result.hits[0]!.document.name).toBe('Hexagon bolt');
    expect(result.hits[0]!.score).toBeCloseTo((0.8 * (2 / 3)) / 2);
  });

  it('answers a query without words without asking Elasticsearch', async () => {
    const result = await engine().search({ ...keyword, text: { type: 'keyword', query: '?!', identifiers: [] } });
    expect(result).toEqual({ hits: [], total_estimate: 0, total_is_estimate: false, fuzzy: false });
    expect(sent).toEqual([]);
  });

  it('rejects a ping when the cluster answers an error', async () => {
    answer = () => ({ status: 503, body: {} });
    await expect(engine().ping()).rejects.toThrow();
  });
});
