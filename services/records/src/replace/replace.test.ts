import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { Subscription } from '@trove/bus';
import {
  RECORDS_BULK_UPSERT,
  RECORDS_REPLACE_ABORT,
  RECORDS_REPLACE_BEGIN,
  RECORDS_REPLACE_FINISH,
  TOPICS,
  type RecordChangedEvent,
} from '@trove/contracts';
import { IDENTITY_HEADER, signIdentity } from '@trove/platform';
import { createTestDatabase } from '@trove/testing';
import { lockGenerations } from './store';
import type { Db } from '../shared/schema';
import { acknowledgeIndexing, eventually, newTenant, startRecords, type Harness } from '../../test/helpers';

/**
 * Blue-green replace as records serves it: ingestion's internal begin / write / finish, and the portal's status, swap
 * and cancel. These tests play search's side: every record whose name does not start with "Unindexed" is
 * acknowledged indexed.
 */
let h: Harness;
let acker: Subscription;

beforeAll(async () => {
  h = await startRecords();
  acker = await acknowledgeIndexing(h, (e) => !('record' in e) || e.record.name.startsWith('Unindexed'));
});
afterAll(async () => {
  await acker.stop();
  await h.stop();
});

/** A tenant as the portal (a signed-in user) and as ingestion acting for it, on a plan. */
function tenantOn(plan?: string, harness = () => h, tenantId = newTenant()) {
  const principal = `user:${randomUUID()}`;
  const app = () => harness().svc.instance.app;
  const headers = (caller?: 'ingestion') => ({
    [IDENTITY_HEADER]: signIdentity({ tenantId, principal, scopes: ['admin'], plan, caller }, harness().svc.ctx.config.INTERNAL_TOKEN_SECRET, 3600),
  });
  const internal = (path: string, body: object) => request(app()).post(path).set(headers('ingestion')).send(body);
  return {
    tenantId,
    get: (path: string) => request(app()).get(path).set(headers()),
    post: (path: string) => request(app()).post(path).set(headers()),
    begin: (collection: string, newRecords: number) => internal(RECORDS_REPLACE_BEGIN.path, { collection, new_records: newRecords }),
    write: (collection: string, names: string[], extra: { generation?: number; source_ids?: string[] } = {}) =>
      internal(RECORDS_BULK_UPSERT.path, {
        collection,
        record_type: 'product',
        source_type: 'file_upload',
        ...(extra.generation !== undefined ? { generation: extra.generation } : {}),
        records: names.map((name, i) => ({ name, collection_data: { n: i }, ...(extra.source_ids ? { source_id: extra.source_ids[i] } : {}) })),
      }),
    finish: (collection: string, generation: number) => internal(RECORDS_REPLACE_FINISH.path, { collection, generation, summary: { accepted: 1 } }),
    abort: (collection: string, generation: number) => internal(RECORDS_REPLACE_ABORT.path, { collection, generation }),
  };
}
type Tenant = ReturnType<typeof tenantOn>;

const status = (t: Tenant, c: string) => t.get(`/portal/collections/${c}/replace-status`);

async function indexed(t: Tenant, c: string): Promise<void> {
  await eventually(async () => expect((await status(t, c)).body.phase).toBe('ready'));
}

/** A live collection of `live` records (when any), and a finished staging upload of `names` into it. */
async function staged(t: Tenant, c: string, live: string[], names: string[]) {
  if (live.length > 0) expect((await t.write(c, live)).status).toBe(200);
  const begun = await t.begin(c, names.length);
  expect(begun.status).toBe(200);
  const generation: number = begun.body.generation;
  expect((await t.write(c, names, { generation })).status).toBe(200);
  expect((await t.finish(c, generation)).status).toBe(204);
  return generation;
}

/** The collection's active records as the collection listing counts them (active generation only). */
async function liveCount(t: Tenant, c: string): Promise<number> {
  const res = await request(h.svc.instance.app)
    .get(`/collections`)
    .set({ [IDENTITY_HEADER]: signIdentity({ tenantId: t.tenantId, principal: 'key:x', scopes: ['admin'] }, h.svc.ctx.config.INTERNAL_TOKEN_SECRET) });
  const summary = (res.body.collections as Array<{ name: string; total_records: number }>).find((s) => s.name === c);
  return summary?.total_records ?? 0;
}

describe('beginning a replace', () => {
  it('opens staging generation active + 1, and a second begin is 409 while it is open', async () => {
    const t = tenantOn();
    expect((await t.write('tools', ['Hammer'])).status).toBe(200);
    const res = await t.begin('tools', 3);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ collection: 'tools', generation: 2, active_generation: 1 });
    expect((await t.begin('tools', 3)).status).toBe(409);
  });

  it('answers 404 for a collection the tenant never used, and for another tenant\'s collection', async () => {
    const t = tenantOn();
    expect((await t.write('tools', ['Hammer'])).status).toBe(200);
    expect((await t.begin('nothing-here', 1)).status).toBe(404);
    expect((await tenantOn().begin('tools', 1)).status).toBe(404);
  });

  it('lets exactly one of two concurrent begins in', async () => {
    const t = tenantOn();
    expect((await t.write('tools', ['Hammer'])).status).toBe(200);
    const answers = await Promise.all([t.begin('tools', 1), t.begin('tools', 1)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
  });

  it("answers 402 when the tenant's other records plus the new ones exceed the plan, and opens nothing", async () => {
    const t = tenantOn('free');
    const forty = Array.from({ length: 40 }, (_, i) => `Screw ${i}`);
    expect((await t.write('other', forty)).status).toBe(200);
    expect((await t.write('tools', ['Hammer', 'Saw'])).status).toBe(200);
    const refused = await t.begin('tools', 11);
    expect(refused.status).toBe(402);
    expect(typeof refused.body.detail).toBe('string');
    expect((await status(t, 'tools')).body.has_pending_replace).toBe(false);
    // The collection's own records are replaced, so they do not count: 40 + 10 fits the free plan's 50.
    expect((await t.begin('tools', 10)).status).toBe(200);
  });

  it('validates the body (422)', async () => {
    const t = tenantOn();
    const res = await request(h.svc.instance.app)
      .post(RECORDS_REPLACE_BEGIN.path)
      .set({ [IDENTITY_HEADER]: signIdentity({ tenantId: t.tenantId, principal: 'x', scopes: ['admin'], caller: 'ingestion' }, h.svc.ctx.config.INTERNAL_TOKEN_SECRET) })
      .send({ collection: 'tools', new_records: -1 });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['body', 'new_records']);
  });
});

describe('writing into staging', () => {
  it('keeps staging apart from production: same source ids and contents create new staging records', async () => {
    const t = tenantOn();
    const prod = await t.write('tools', ['Hammer', 'Saw'], { source_ids: ['h', 's'] });
    const { generation } = (await t.begin('tools', 2)).body;
    const stage = await t.write('tools', ['Hammer', 'Saw'], { generation, source_ids: ['h', 's'] });
    expect(stage.status).toBe(200);
    expect(stage.body.results.map((r: { status: string }) => r.status)).toEqual(['created', 'created']);
    expect(stage.body.results.map((r: { id: string }) => r.id)).not.toEqual(prod.body.results.map((r: { id: string }) => r.id));
    // Within staging a source id still upserts.
    const again = await t.write('tools', ['Hammer v2'], { generation, source_ids: ['h'] });
    expect(again.body.results).toEqual([{ status: 'updated', id: stage.body.results[0].id }]);
    // Production is untouched and still what the collection listing counts; the record listing shows only it.
    expect(await liveCount(t, 'tools')).toBe(2);
    const listed = await t.get('/records?collection=tools&limit=100');
    expect(listed.body.items.map((r: { name: string }) => r.name).sort()).toEqual(['Hammer', 'Saw']);
    const old = await t.get(`/records/${prod.body.results[0].id}`);
    expect(old.body).toMatchObject({ name: 'Hammer', generation: 1 });
  });

  it('refuses (409) a write into a generation that is not an open staging upload', async () => {
    const t = tenantOn();
    expect((await t.write('tools', ['Hammer'])).status).toBe(200);
    expect((await t.write('tools', ['Saw'], { generation: 2 })).status).toBe(409);
    const { generation } = (await t.begin('tools', 1)).body;
    expect((await t.finish('tools', generation)).status).toBe(204);
    expect((await t.write('tools', ['Saw'], { generation })).status).toBe(409);
    expect((await t.finish('tools', generation)).status).toBe(409);
  });
});

describe('GET /portal/collections/{name}/replace-status', () => {
  it('answers nulls but has_pending_replace when nothing is staged, 404 for an unknown collection', async () => {
    const t = tenantOn();
    expect((await t.write('tools', ['Hammer'])).status).toBe(200);
    const res = await status(t, 'tools');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      has_pending_replace: false,
      staging_generation: null,
      staging_status: null,
      phase: null,
      total: null,
      indexed: null,
      pending: null,
      processing: null,
      failed: null,
      ready_to_swap: null,
    });
    expect((await status(t, 'unknown')).status).toBe(404);
    expect((await status(t, 'bad name!')).status).toBe(422);
  });

  it('goes from uploading to indexing to ready, ready_to_swap only at the end', async () => {
    const t = tenantOn();
    expect((await t.write('tools', ['Hammer'])).status).toBe(200);
    const { generation } = (await t.begin('tools', 2)).body;
    const uploading = await status(t, 'tools');
    expect(uploading.body).toMatchObject({ has_pending_replace: true, staging_generation: generation, staging_status: 'staging', phase: 'uploading', total: 0, ready_to_swap: false });

    expect((await t.write('tools', ['Unindexed chisel', 'Saw'], { generation })).status).toBe(200);
    expect((await t.finish('tools', generation)).status).toBe(204);
    await eventually(async () => expect((await status(t, 'tools')).body).toMatchObject({ phase: 'indexing', total: 2, indexed: 1, pending: 1, ready_to_swap: false }));
  });

  it('says completed_with_errors when a staging record failed to index, and refuses the swap', async () => {
    const t = tenantOn();
    expect((await t.write('tools', ['Hammer'])).status).toBe(200);
    const generation = await staged(t, 'tools', [], ['Unindexed failing saw']);
    const ours = (c: RecordChangedEvent) => 'record' in c && c.record.name === 'Unindexed failing saw' && c.tenant_id === t.tenantId;
    const record = (await h.waitForChanges((cs) => cs.some(ours))).find(ours)!;
    await h.svc.bus.publish([
      { topic: TOPICS.recordsIndexed, key: record.record_id, payload: { tenant_id: t.tenantId, record_id: record.record_id, version: record.version, status: 'failed' } },
    ]);
    await eventually(async () =>
      expect((await status(t, 'tools')).body).toMatchObject({ staging_generation: generation, phase: 'completed_with_errors', failed: 1, ready_to_swap: false }),
    );
    expect((await t.post('/portal/collections/tools/swap')).status).toBe(409);
  });

  it('is closed to anyone but a signed-in portal user', async () => {
    const t = tenantOn();
    expect((await t.write('tools', ['Hammer'])).status).toBe(200);
    const asKey = await request(h.svc.instance.app)
      .get('/portal/collections/tools/replace-status')
      .set({ [IDENTITY_HEADER]: signIdentity({ tenantId: t.tenantId, principal: 'key:abc', scopes: ['admin'] }, h.svc.ctx.config.INTERNAL_TOKEN_SECRET) });
    expect(asKey.status).toBe(401);
  });
});

describe('POST /portal/collections/{name}/swap', () => {
  it('makes staging active, hard-deletes the old generation and announces the swap', async () => {
    const t = tenantOn();
    const old = await t.write('tools', ['Hammer', 'Saw', 'Drill']);
    const generation = await staged(t, 'tools', [], ['Hammer 2026', 'Saw 2026']);
    await indexed(t, 'tools');

    const res = await t.post('/portal/collections/tools/swap');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ collection: 'tools', old_generation: 1, new_generation: generation, old_record_count: 3, new_record_count: 2, deleted: 3 });

    expect((await t.get(`/records/${old.body.results[0].id}`)).status).toBe(404);
    expect(await liveCount(t, 'tools')).toBe(2);
    expect((await status(t, 'tools')).body.has_pending_replace).toBe(false);
    await h.waitForChanges((cs) =>
      cs.some((c) => c.kind === 'generation_swapped' && c.tenant_id === t.tenantId && c.collection === 'tools' && c.new_generation === generation),
    );
    // A later write goes to the new active generation, and the next replace stages the one after it.
    const later = await t.write('tools', ['Level']);
    expect((await t.get(`/records/${later.body.results[0].id}`)).body.generation).toBe(generation);
    expect((await t.begin('tools', 1)).body.generation).toBe(generation + 1);
  });

  it('answers 409 without staging, while uploading, and before every staging record is indexed', async () => {
    const t = tenantOn();
    expect((await t.write('tools', ['Hammer'])).status).toBe(200);
    expect((await t.post('/portal/collections/tools/swap')).status).toBe(409);
    const { generation } = (await t.begin('tools', 1)).body;
    expect((await t.write('tools', ['Unindexed saw'], { generation })).status).toBe(200);
    expect((await t.post('/portal/collections/tools/swap')).status).toBe(409);
    expect((await t.finish('tools', generation)).status).toBe(204);
    const res = await t.post('/portal/collections/tools/swap');
    expect(res.status).toBe(409);
    expect(await liveCount(t, 'tools')).toBe(1);
    expect((await t.post('/portal/collections/unknown/swap')).status).toBe(404);
  });

  it('swaps once when two swaps race: the other finds no staging (409)', async () => {
    const t = tenantOn();
    await staged(t, 'tools', ['Hammer'], ['Saw']);
    await indexed(t, 'tools');
    const answers = await Promise.all([t.post('/portal/collections/tools/swap'), t.post('/portal/collections/tools/swap')]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
  });
});

describe('POST /portal/collections/{name}/cancel-replace', () => {
  it('archives staging and leaves production exactly as it was', async () => {
    const t = tenantOn();
    const prod = await t.write('tools', ['Hammer', 'Saw']);
    const read = () => Promise.all(prod.body.results.map((r: { id: string }) => t.get(`/records/${r.id}`)));
    await eventually(async () => expect((await read()).map((r) => r.body.indexing_status)).toEqual(['indexed', 'indexed']));
    const before = await read();
    const generation = await staged(t, 'tools', [], ['Chisel', 'Unindexed drill', 'Plane']);

    const res = await t.post('/portal/collections/tools/cancel-replace');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ collection: 'tools', cancelled_generation: generation, records_archived: 3 });

    const after = await read();
    expect(after.map((r) => r.body)).toEqual(before.map((r) => r.body));
    expect((await status(t, 'tools')).body.has_pending_replace).toBe(false);
    expect((await t.post('/portal/collections/tools/cancel-replace')).status).toBe(409);
    // A new replace can begin, and its records never meet the cancelled ones.
    const again = await t.begin('tools', 1);
    expect(again.status).toBe(200);
    expect((await t.write('tools', ['Chisel'], { generation: again.body.generation })).body.results[0].status).toBe('created');
  });

  it('cancels an upload that never finished (as after a crash), so the collection can be replaced again', async () => {
    const t = tenantOn();
    expect((await t.write('tools', ['Hammer'])).status).toBe(200);
    const { generation } = (await t.begin('tools', 2)).body;
    expect((await t.write('tools', ['Half written saw'], { generation })).status).toBe(200);
    const res = await t.post('/portal/collections/tools/cancel-replace');
    expect(res.body).toEqual({ collection: 'tools', cancelled_generation: generation, records_archived: 1 });
    expect((await t.write('tools', ['Late chunk'], { generation })).status).toBe(409);
    expect(await liveCount(t, 'tools')).toBe(1);
  });

  it("lets an upload give up only its own staging (ingestion's abort)", async () => {
    const t = tenantOn();
    expect((await t.write('tools', ['Hammer'])).status).toBe(200);
    const { generation } = (await t.begin('tools', 1)).body;
    expect((await t.write('tools', ['Saw'], { generation })).status).toBe(200);
    expect((await t.abort('tools', generation + 1)).status).toBe(409);
    const res = await t.abort('tools', generation);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ collection: 'tools', cancelled_generation: generation, records_archived: 1 });
    expect((await t.abort('tools', generation)).status).toBe(409);
    expect(await liveCount(t, 'tools')).toBe(1);
  });

  it('answers 409 without staging and 404 for an unknown collection', async () => {
    const t = tenantOn();
    expect((await t.write('tools', ['Hammer'])).status).toBe(200);
    expect((await t.post('/portal/collections/tools/cancel-replace')).status).toBe(409);
    expect((await t.post('/portal/collections/unknown/cancel-replace')).status).toBe(404);
  });
});

describe('a replace across a crash', () => {
  it('reports a swap or cancel under way as processing while one holds the collection', async () => {
    const t = tenantOn();
    await staged(t, 'tools', ['Hammer'], ['Saw']);
    await indexed(t, 'tools');
    const db: Db = h.svc.database.db;
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    const swapping = db.transaction().execute(async (trx) => {
      await lockGenerations(trx, t.tenantId, 'tools');
      locked();
      await held;
    });
    await isLocked;
    expect((await status(t, 'tools')).body).toMatchObject({ has_pending_replace: true, phase: 'processing', ready_to_swap: false });
    release();
    await swapping;
    expect((await status(t, 'tools')).body.phase).toBe('ready');
  });

  it('keeps a finished staging generation through a restart, and swaps it afterwards', async () => {
    const owned = await createTestDatabase();
    let current = await startRecords({ database: owned.database });
    let acks = await acknowledgeIndexing(current, () => false);
    try {
      const t = tenantOn(undefined, () => current);
      const generation = await staged(t, 'tools', ['Hammer', 'Saw'], ['Chisel']);
      await indexed(t, 'tools');
      await acks.stop();
      await current.stop();

      current = await startRecords({ database: owned.database });
      acks = await acknowledgeIndexing(current, () => false);
      expect((await status(t, 'tools')).body).toMatchObject({ staging_generation: generation, phase: 'ready', ready_to_swap: true });
      const res = await t.post('/portal/collections/tools/swap');
      expect(res.body).toMatchObject({ old_record_count: 2, new_record_count: 1, deleted: 2 });
    } finally {
      await acks.stop();
      await current.stop();
      await owned.drop();
    }
  });
});
