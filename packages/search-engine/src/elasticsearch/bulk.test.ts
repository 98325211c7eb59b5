import type { estypes } from '@elastic/elasticsearch';
import type { IndexChange } from '../port';
import { TENANT, upsert } from './__tests__/fixtures';
import { heldStateOf, lookupsOf, outcomesOf, planBulk, type Held, type HeldState } from './bulk';
import { indexesOf } from './mappings';

const indexes = indexesOf('t');
const id = (record_id: string) => `${TENANT}:${record_id}`;
const gid = `${TENANT}:fasteners`;
const write = (index: string, record_id: string, version: number, version_type = 'external') => ({
  _index: index,
  _id: id(record_id),
  routing: TENANT,
  version,
  version_type,
});

function held(documents: Record<string, Partial<Held>> = {}, generation?: number): HeldState {
  return {
    documents: new Map(Object.entries(documents).map(([r, v]) => [id(r), { version: 1, removed: false, public: false, ...v }])),
    generations: new Map(generation === undefined ? [] : [[gid, generation]]),
  };
}

/** The action lines of a plan, without the sources. */
function actions(operations: object[]): object[] {
  return operations.filter((o) => 'index' in o || 'delete' in o);
}

describe('reading what the engine holds', () => {
  it('looks up each record once and each collection generation once', () => {
    const changes: IndexChange[] = [
      upsert({ record_id: 'a' }),
      upsert({ record_id: 'a', version: 4 }),
      { op: 'remove', tenant_id: TENANT, record_id: 'b', version: 2 },
    ];
    expect(lookupsOf(changes, indexes)).toEqual([
      { _index: 't-records', _id: id('a'), routing: TENANT, _source: ['visibility', 'tombstone'] },
      { _index: 't-generations', _id: gid, _source: ['active_generation'] },
      { _index: 't-records', _id: id('b'), routing: TENANT, _source: ['visibility', 'tombstone'] },
    ]);
  });

  it('reads versions, public visibility and active generations from the mget answer', () => {
    const response = {
      docs: [
        { _index: 't-records', _id: id('a'), found: true, _version: 7, _source: { visibility: 'public' } },
        { _index: 't-records', _id: id('b'), found: true, _version: 2, _source: { tombstone: true } },
        { _index: 't-records', _id: id('c'), found: false },
        { _index: 't-generations', _id: gid, found: true, _version: 3, _source: { active_generation: 3 } },
      ],
    } as estypes.MgetResponse<Record<string, unknown>>;
    const state = heldStateOf(response, indexes);
    expect([...state.documents]).toEqual([
      [id('a'), { version: 7, removed: false, public: true }],
      [id('b'), { version: 2, removed: true, public: false }],
    ]);
    expect([...state.generations]).toEqual([[gid, 3]]);
  });
});

describe('planning a bulk request', () => {
  it('indexes a private document into the records index only, with its version as external version', () => {
    const plan = planBulk([upsert({ record_id: 'a', version: 5 })], held({}, 1), indexes);
    expect(actions(plan.operations)).toEqual([{ index: write('t-records', 'a', 5) }]);
    expect(plan.operations[1]).toMatchObject({ record_id: 'a', version: 5, tombstone: false, data: expect.any(Array) });
    expect(plan.actions).toEqual([{ change: 0, role: 'private' }]);
    expect(plan.raises).toEqual([]);
  });

  it('also indexes a searchable public document into the public index', () => {
    const plan = planBulk([upsert({ record_id: 'a', version: 5, visibility: 'public' })], held({}, 1), indexes);
    expect(actions(plan.operations)).toEqual([{ index: write('t-records', 'a', 5) }, { index: write('t-public', 'a', 5) }]);
    expect(plan.actions).toEqual([
      { change: 0, role: 'private' },
      { change: 0, role: 'public' },
    ]);
  });

  it('keeps public documents that are not searchable out of the public index', () => {
    const plan = planBulk(
      [
        upsert({ record_id: 'draft', visibility: 'public', status: 'draft' }),
        upsert({ record_id: 'next', visibility: 'public', generation: 2 }),
        upsert({ record_id: 'archived', visibility: 'public', status: 'archived' }),
      ],
      held({}, 1),
      indexes,
    );
    expect(plan.actions.map((a) => a.role)).toEqual(['private', 'private', 'private']);
  });

  it('deletes a document from the public index when it stops being public, with its new version', () => {
    const plan = planBulk([upsert({ record_id: 'a', version: 6 })], held({ a: { version: 5, public: true } }, 1), indexes);
    expect(actions(plan.operations)).toEqual([{ index: write('t-records', 'a', 6) }, { delete: write('t-public', 'a', 6) }]);
  });

  it('removes with a tombstone in the records index and a delete from the public index', () => {
    const plan = planBulk(
      [{ op: 'remove', tenant_id: TENANT, record_id: 'a', version: 9 }],
      held({ a: { version: 5, public: true } }),
      indexes,
    );
    expect(plan.operations).toEqual([
      { index: write('t-records', 'a', 9, 'external_gte') },
      { tenant_id: TENANT, record_id: 'a', version: 9, tombstone: true },
      { delete: write('t-public', 'a', 9, 'external_gte') },
    ]);
  });

  it('lets a removal with the stored version take the record out, but not rewrite a tombstone', () => {
    const remove: IndexChange = { op: 'remove', tenant_id: TENANT, record_id: 'a', version: 5 };
    expect(planBulk([remove], held({ a: { version: 5 } }), indexes).actions).toEqual([{ change: 0, role: 'private' }]);
    expect(planBulk([remove], held({ a: { version: 5, removed: true } }), indexes).actions).toEqual([]);
    expect(planBulk([remove], held({ a: { version: 6 } }), indexes).actions).toEqual([]);
    expect(planBulk([upsert({ record_id: 'a', version: 5 }), remove], held(), indexes).actions).toHaveLength(2);
    expect(planBulk([remove, upsert({ record_id: 'a', version: 5 })], held(), indexes).actions).toHaveLength(1);
  });

  it('writes nothing for a version the engine already holds, and reports it indexed', () => {
    const changes = [upsert({ record_id: 'a', version: 5 }), upsert({ record_id: 'b', version: 2 })];
    const plan = planBulk(changes, held({ a: { version: 5, public: false }, b: { version: 9, public: false } }, 1), indexes);
    expect(plan.operations).toEqual([]);
    expect(outcomesOf(changes, plan, undefined)).toEqual([
      { record_id: 'a', version: 5, status: 'indexed' },
      { record_id: 'b', version: 2, status: 'indexed' },
    ]);
  });

  it('skips an older version that follows a newer one in the same batch', () => {
    const changes = [upsert({ record_id: 'a', version: 7, visibility: 'public' }), upsert({ record_id: 'a', version: 6 })];
    const plan = planBulk(changes, held({}, 1), indexes);
    expect(plan.actions).toEqual([
      { change: 0, role: 'private' },
      { change: 0, role: 'public' },
    ]);
    expect(plan.settled.get(1)).toEqual({ record_id: 'a', version: 6, status: 'indexed' });
  });

  it('refuses a malformed change alone', () => {
    const changes = [
      upsert({ record_id: 'a' }),
      upsert({ record_id: 'b', tenant_id: '' }),
    ];
    const plan = planBulk(changes, held({}, 1), indexes);
    expect(plan.actions).toEqual([{ change: 0, role: 'private' }]);
    expect(plan.settled.get(1)).toMatchObject({ status: 'failed', error: 'tenant_id must be a non-empty string' });
  });

  it('raises the active generation to the highest the batch knew, and judges searchability by it', () => {
    const changes = [
      upsert({ record_id: 'old', visibility: 'public', generation: 1 }, 1),
      upsert({ record_id: 'new', visibility: 'public', generation: 2 }, 2),
    ];
    const plan = planBulk(changes, held({ old: { version: 1, public: true } }, 1), indexes);
    expect(plan.raises).toEqual([{ tenant_id: TENANT, collection: 'fasteners', generation: 2 }]);
    expect(actions(plan.operations)).toEqual([
      { index: write('t-records', 'old', 3) },
      { delete: write('t-public', 'old', 3) },
      { index: write('t-records', 'new', 3) },
      { index: write('t-public', 'new', 3) },
    ]);
  });

  it('raises the generation of a collection the engine has never seen, and never lowers one', () => {
    expect(planBulk([upsert({}, 1)], held(), indexes).raises).toEqual([{ tenant_id: TENANT, collection: 'fasteners', generation: 1 }]);
    expect(planBulk([upsert({ generation: 3 }, 2)], held({}, 3), indexes).raises).toEqual([]);
  });
});

describe('reading the bulk answer', () => {
  const item = (fields: Partial<estypes.BulkResponseItem>): estypes.BulkResponseItem => ({
    _index: 't-records',
    status: 201,
    result: 'created',
    ...fields,
  });

  it('reports a version conflict as indexed and a mapping error as failed with its reason', () => {
    const changes = [upsert({ record_id: 'a' }), upsert({ record_id: 'b' }), upsert({ record_id: 'c' })];
    const plan = planBulk(changes, held({}, 1), indexes);
    const response: estypes.BulkResponse = {
      errors: true,
      took: 3,
      items: [
        {
          index: item({
            status: 409,
            result: undefined,
            error: { type: 'version_conflict_engine_exception', reason: '[a]: version conflict, current version [4] is higher' },
          }),
        },
        {
          index: item({
            status: 400,
            result: undefined,
            error: {
              type: 'mapper_parsing_exception',
              reason: 'failed to parse field [updated_at] of type [date]',
              caused_by: { type: 'illegal_argument_exception', reason: 'failed to parse date field [yesterday]' },
            },
          }),
        },
        { index: item({}) },
      ],
    };
    expect(outcomesOf(changes, plan, response)).toEqual([
      { record_id: 'a', version: 3, status: 'indexed' },
      {
        record_id: 'b',
        version: 3,
        status: 'failed',
        error:
          'mapper_parsing_exception: failed to parse field [updated_at] of type [date] (illegal_argument_exception: failed to parse date field [yesterday])',
      },
      { record_id: 'c', version: 3, status: 'indexed' },
    ]);
  });

  it('counts a public delete that found nothing as done, and a failed public write as the change failing', () => {
    const changes = [upsert({ record_id: 'a', version: 6 }), upsert({ record_id: 'b', visibility: 'public' })];
    const plan = planBulk(changes, held({ a: { version: 5, public: true } }, 1), indexes);
    const response: estypes.BulkResponse = {
      errors: true,
      took: 1,
      items: [
        { index: item({}) },
        { delete: item({ _index: 't-public', status: 404, result: 'not_found' }) },
        { index: item({}) },
        {
          index: item({
            _index: 't-public',
            status: 429,
            error: { type: 'es_rejected_execution_exception', reason: 'rejected execution' },
          }),
        },
      ],
    };
    expect(outcomesOf(changes, plan, response).map((o) => [o.status, o.error])).toEqual([
      ['indexed', undefined],
      ['failed', 'public index: es_rejected_execution_exception: rejected execution'],
    ]);
  });

  it('refuses an answer whose items do not line up with the request', () => {
    const changes = [upsert({ record_id: 'a' })];
    const plan = planBulk(changes, held({}, 1), indexes);
    expect(() => outcomesOf(changes, plan, { errors: false, took: 1, items: [] })).toThrow('bulk answered 0 items for 1 actions');
  });
});
