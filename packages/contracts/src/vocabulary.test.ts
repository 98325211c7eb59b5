import { z } from 'zod';
import { foreignNames, inOlderNames, olderLoc, withOlderNames } from './vocabulary';

describe('the older vocabulary', () => {
  const schema = z.strictObject({
    record_ids: z.array(z.string()).min(1),
    update: z.strictObject({ record_type: z.string().optional(), collection_data: z.record(z.string(), z.unknown()).optional() }).optional(),
  });

  it('parses a body in the older names into the current ones, nested objects too', () => {
    const body = { entity_ids: ['a'], update: { entity_type: 'bolt', vertical_data: { collection: 'kept as sent' } } };
    expect(inOlderNames(schema).parse(body)).toEqual({ record_ids: ['a'], update: { record_type: 'bolt', collection_data: { collection: 'kept as sent' } } });
  });

  it('refuses current names as unknown fields of a strict schema and names the older field in its issues', () => {
    const result = inOlderNames(schema).safeParse({ record_ids: ['a'], update: { vertical_data: 1 } });
    expect(result.success).toBe(false);
    expect(result.error!.issues.map((i) => [i.code, i.path])).toEqual([
      ['invalid_type', ['entity_ids']],
      ['invalid_type', ['update', 'vertical_data']],
      ['unrecognized_keys', []],
    ]);
    expect(result.error!.issues[2]).toMatchObject({ keys: ['record_ids'] });
  });

  it('answers in the older names at the top level only, and says completed for indexed', () => {
    expect(withOlderNames({ id: '1', collection: 'c', collection_data: { collection: 'x' }, indexing_status: 'indexed' })).toEqual({
      id: '1',
      vertical: 'c',
      vertical_data: { collection: 'x' },
      embedding_status: 'completed',
    });
    expect(withOlderNames({ indexing_status: 'failed' })).toEqual({ embedding_status: 'failed' });
  });

  it('renames a loc up to a free-form field, whose keys are the tenant\'s', () => {
    expect(olderLoc(['body', 'update', 'collection_data', 'record_type'])).toEqual(['body', 'update', 'vertical_data', 'record_type']);
    expect(olderLoc(['body', 'filters', 'collection'])).toEqual(['body', 'filters', 'collection']);
    expect(olderLoc(['query', 'collection'])).toEqual(['query', 'vertical']);
  });

  it("each vocabulary's routes refuse the other's names", () => {
    expect([...foreignNames('older')]).toContain('collection');
    expect([...foreignNames('current')]).toContain('vertical');
    expect([...foreignNames('current')]).not.toContain('collection');
  });
});
