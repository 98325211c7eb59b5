import { bulkUpsertItem, bulkUpsertRequest } from './ingest';
import { collectionData } from './records';

const issues = (data: unknown) => collectionData.safeParse(data).error?.issues.map((i) => ({ path: i.path, message: i.message }));

function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let i = 1; i < depth; i++) value = { a: value };
  return value;
}

describe('the one strict record schema', () => {
  it('holds a bulk upsert to the rules of POST /records', () => {
    const refused = (item: Record<string, unknown>) => bulkUpsertItem.safeParse(item).error?.issues[0]?.message;
    expect(refused({ name: '   ' })).toBe('String should not be blank');
    expect(refused({ name: 'x\u0000' })).toBe('String should not contain NUL characters or unpaired surrogates');
    expect(refused({ name: 'ok', description: '\uD800' })).toBe('String should not contain NUL characters or unpaired surrogates');
    expect(refused({ name: 'ok', source_id: '' })).toBe('Too small: expected string to have >=1 characters');
    expect(refused({ name: 'ok', collection_data: { a: [1, { b: 'x\u0000' }] } })).toBe('String should not contain NUL characters or unpaired surrogates');
    expect(bulkUpsertRequest.safeParse({ collection: 'c', record_type: ' ', source_type: 'api', records: [{ name: 'ok' }] }).success).toBe(false);
    expect(bulkUpsertItem.safeParse({ name: 'ok', collection_data: { a: 'ボルト 🙂' } }).success).toBe(true);
  });

  it('names the part of collection_data that cannot be stored, with its path', () => {
    expect(issues({ a: [1, { b: 'x\u0000' }] })).toEqual([{ path: ['a', 1, 'b'], message: 'String should not contain NUL characters or unpaired surrogates' }]);
    expect(issues({ a: { 'k\u0000': 1 } })).toEqual([{ path: ['a', 'k\u0000'], message: 'Key should not contain NUL characters or unpaired surrogates' }]);
    expect(issues(nested(32))).toBeUndefined();
    expect(issues(nested(33))).toEqual([{ path: Array(32).fill('a'), message: 'Value should be nested at most 32 levels deep' }]);
    expect(issues([])).toEqual([{ path: [], message: 'Input should be a valid dictionary' }]);
    expect(issues({ ['k'.repeat(257)]: 1 })).toEqual([{ path: ['k'.repeat(257)], message: 'Key should be at most 256 characters' }]);
  });
});
