import type { Subscription } from '@trove/bus';
import { RECORDS_REPLACE_BEGIN } from '@trove/contracts';
import { acknowledgeIndexing, bolt, newTenant, startRecords, type Client, type Harness } from '../../test/helpers';
import { portalClient, type PortalClient } from '../../test/portal-helpers';

let h: Harness;
let acker: Subscription;

beforeAll(async () => {
  h = await startRecords({ config: { INDEXING_WAIT_MS: '5000' } });
  acker = await acknowledgeIndexing(h, () => false);
});
afterAll(async () => {
  await acker.stop();
  await h.stop();
});

/** A new tenant: its key client (to seed records) and a signed-in person of it. */
function newAccount(plan?: string): { id: string; api: Client; portal: PortalClient } {
  const id = newTenant();
  return { id, api: h.as(id), portal: portalClient(h.svc, id, plan) };
}

async function seed(api: Client, collection: string, count: number, overrides: Record<string, unknown> = {}): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const res = await api.post('/records', bolt({ name: `${collection} item ${i}`, collection, ...overrides }));
    expect(res.status).toBe(201);
    ids.push(res.body.id);
  }
  return ids;
}

describe('GET /portal/collections', () => {
  it('summarises each collection with its indexing counts, and the plan with its record limit', async () => {
    const { api, portal } = newAccount('free');
    await seed(api, 'fasteners', 3);
    await seed(api, 'fasteners', 1, { record_type: 'accessory' });
    await seed(api, 'tools', 2);
    await seed(api, 'tools', 1, { status: 'draft' });
    await api.delete(`/records/${(await seed(api, 'tools', 1))[0]}`);
    await seed(newAccount().api, 'fasteners', 2);
    const res = await portal.get('/portal/collections');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      collections: [
        { name: 'fasteners', record_types: ['product', 'accessory'], total_records: 4, indexed: 4, pending: 0, processing: 0, failed: 0, has_pending_replace: false, default_visibility: 'private' },
        { name: 'tools', record_types: ['product'], total_records: 2, indexed: 2, pending: 0, processing: 0, failed: 0, has_pending_replace: false, default_visibility: 'private' },
      ],
      plan: 'free',
      record_limit: 50,
      total_records: 6,
    });
  });

  it('reads an identity without a plan as enterprise, unlimited; a tenant without records has none', async () => {
    const { portal } = newAccount();
    expect((await portal.get('/portal/collections')).body).toEqual({ collections: [], plan: 'enterprise', record_limit: null, total_records: 0 });
    expect((await newAccount('pro').portal.get('/portal/collections')).body).toMatchObject({ plan: 'pro', record_limit: 100_000 });
  });

  it('says which collection has a replace staged', async () => {
    const { id, api, portal } = newAccount();
    await seed(api, 'catalogue', 2);
    await seed(api, 'steady', 1);
    // As ingestion's replace upload opens the staging generation before writing into it.
    const begun = await h.as(id, ['upload']).post(RECORDS_REPLACE_BEGIN.path, { collection: 'catalogue', new_records: 2 });
    expect(begun.status).toBe(200);
    const listed = (await portal.get('/portal/collections')).body.collections;
    expect(listed.map((c: { name: string; has_pending_replace: boolean; total_records: number }) => [c.name, c.has_pending_replace, c.total_records])).toEqual([
      ['catalogue', true, 2],
      ['steady', false, 1],
    ]);
  });
});

describe('DELETE /portal/collections/{name}', () => {
  it('archives every record of the collection, counts them, and the next reads see none', async () => {
    const { id, api, portal } = newAccount();
    const ids = [...(await seed(api, 'doomed', 3)), ...(await seed(api, 'doomed', 1, { status: 'draft' }))];
    await api.delete(`/records/${ids[0]}`);
    const kept = await seed(api, 'kept', 1);
    const res = await portal.delete('/portal/collections/doomed');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ collection: 'doomed', records_archived: 3 });
    expect((await portal.get('/portal/records?collection=doomed')).body).toEqual({ items: [], total: 0 });
    expect((await portal.get('/portal/collections')).body.collections.map((c: { name: string }) => c.name)).toEqual(['kept']);
    for (const recordId of ids) expect((await portal.get(`/portal/records/${recordId}`)).body.status).toBe('archived');
    expect((await portal.get(`/portal/records/${kept[0]}`)).body.status).toBe('active');
    // Search removes a record from every index (private and public) on its archived event: one per record archived now.
    const events = await h.waitForChanges((all) => ids.slice(1).every((r) => all.some((e) => e.record_id === r && e.kind === 'archived')));
    expect(events.filter((e) => e.tenant_id === id && e.kind === 'archived').map((e) => e.record_id).sort()).toEqual([...ids].sort());
    // Archiving again finds nothing left; the collection is still known.
    expect((await portal.delete('/portal/collections/doomed')).body).toEqual({ collection: 'doomed', records_archived: 0 });
  });

  it('leaves a staged replace to its own routes: the collection still lists, with nothing live, until it is swapped or cancelled', async () => {
    const { id, api, portal } = newAccount();
    await seed(api, 'renewing', 2);
    expect((await h.as(id, ['upload']).post(RECORDS_REPLACE_BEGIN.path, { collection: 'renewing', new_records: 1 })).status).toBe(200);
    expect((await portal.delete('/portal/collections/renewing')).body).toEqual({ collection: 'renewing', records_archived: 2 });
    expect((await portal.get('/portal/collections')).body.collections).toEqual([
      { name: 'renewing', record_types: [], total_records: 0, indexed: 0, pending: 0, processing: 0, failed: 0, has_pending_replace: true, default_visibility: 'private' },
    ]);
    expect((await portal.post('/portal/collections/renewing/cancel-replace')).status).toBe(200);
    expect((await portal.get('/portal/collections')).body.collections).toEqual([]);
  });

  it("answers 404 for an unknown collection and for another tenant's, which keeps its records", async () => {
    const owner = newAccount();
    await seed(owner.api, 'private-stock', 2);
    const intruder = newAccount();
    const other = await intruder.portal.delete('/portal/collections/private-stock');
    const unknown = await intruder.portal.delete('/portal/collections/never-made');
    expect([other.status, unknown.status]).toEqual([404, 404]);
    expect(other.body).toEqual({ detail: 'Collection private-stock not found' });
    expect((await owner.portal.get('/portal/records?collection=private-stock')).body.total).toBe(2);
  });

  it('answers 422 for a name that is not a collection name', async () => {
    const res = await newAccount().portal.delete('/portal/collections/has%20space');
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['path', 'name']);
  });
});

describe('POST /portal/collections/{name}/reindex', () => {
  it('queues every live record of the collection with a new version', async () => {
    const { api, portal } = newAccount();
    const ids = await seed(api, 'again', 2);
    const res = await portal.post('/portal/collections/again/reindex');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ collection: 'again', records_queued: 2 });
    await h.waitForChanges((all) => ids.every((r) => all.some((e) => e.record_id === r && e.version === 2 && e.kind === 'upserted')));
  });

  it("answers 404 for an unknown collection and for another tenant's", async () => {
    const owner = newAccount();
    await seed(owner.api, 'theirs', 1);
    const { portal } = newAccount();
    expect((await portal.post('/portal/collections/theirs/reindex')).status).toBe(404);
    expect((await portal.post('/portal/collections/nowhere/reindex')).status).toBe(404);
  });
});

describe('PATCH /portal/collections/{name}/default-visibility', () => {
  it('gives every active record the new visibility, announces each, and future records take it', async () => {
    const { api, portal } = newAccount();
    const ids = await seed(api, 'shown', 2);
    const alreadyPublic = await seed(api, 'shown', 1, { visibility: 'public' });
    const res = await portal.patch('/portal/collections/shown/default-visibility', { default_visibility: 'public' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ collection: 'shown', default_visibility: 'public', records_updated: 2 });
    for (const recordId of [...ids, ...alreadyPublic]) expect((await portal.get(`/portal/records/${recordId}`)).body.visibility).toBe('public');
    // The public index follows each record's visibility event.
    await h.waitForChanges((all) => ids.every((r) => all.some((e) => e.record_id === r && e.kind === 'visibility' && e.record.visibility === 'public')));
    const later = await api.post('/records', bolt({ collection: 'shown' }));
    expect(later.body.visibility).toBe('public');
    const listed = async () => (await portal.get('/portal/collections')).body.collections.map((c: { name: string; default_visibility: string }) => [c.name, c.default_visibility]);
    expect(await listed()).toEqual([['shown', 'public']]);
    const back = await portal.patch('/portal/collections/shown/default-visibility', { default_visibility: 'private' });
    expect(back.body).toEqual({ collection: 'shown', default_visibility: 'private', records_updated: 4 });
    expect(await listed()).toEqual([['shown', 'private']]);
  });

  it('creates the collection settings when the collection is new (200, nothing to update)', async () => {
    const { api, portal } = newAccount();
    const res = await portal.patch('/portal/collections/upcoming/default-visibility', { default_visibility: 'public' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ collection: 'upcoming', default_visibility: 'public', records_updated: 0 });
    expect((await api.post('/records', bolt({ collection: 'upcoming' }))).body.visibility).toBe('public');
  });

  it("leaves another tenant's collection of the same name alone", async () => {
    const owner = newAccount();
    const [id] = await seed(owner.api, 'shared-name', 1);
    await newAccount().portal.patch('/portal/collections/shared-name/default-visibility', { default_visibility: 'public' });
    expect((await owner.portal.get(`/portal/records/${id}`)).body.visibility).toBe('private');
    expect((await owner.api.post('/records', bolt({ collection: 'shared-name' }))).body.visibility).toBe('private');
  });

  it('answers 422 for a bad or missing default_visibility and for unknown fields', async () => {
    const { portal } = newAccount();
    for (const [body, loc, type] of [
      [{ default_visibility: 'everyone' }, ['body', 'default_visibility'], 'enum'],
      [{}, ['body', 'default_visibility'], 'missing'],
      [{ default_visibility: 'public', visibility: 'public' }, ['body', 'visibility'], 'extra_forbidden'],
    ] as const) {
      const res = await portal.patch('/portal/collections/shown/default-visibility', body);
      expect(res.status).toBe(422);
      expect(res.body.detail[0]).toMatchObject({ loc, type });
    }
  });
});

describe('older vocabulary: /portal/verticals', () => {
  it('DELETE archives the vertical and counts its entities; reindex queues them; unknown is 404', async () => {
    const { api, portal } = newAccount();
    await seed(api, 'legacy', 2);
    expect((await portal.post('/portal/verticals/legacy/reindex')).body).toEqual({ vertical: 'legacy', entities_queued: 2 });
    const res = await portal.delete('/portal/verticals/legacy');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ vertical: 'legacy', entities_archived: 2 });
    expect((await portal.get('/portal/records?collection=legacy')).body.total).toBe(0);
    expect((await portal.delete('/portal/verticals/unknown')).status).toBe(404);
    expect((await portal.post('/portal/verticals/unknown/reindex')).status).toBe(404);
  });
});

describe('who may call', () => {
  // Every row has a body (undefined where none): jest passes `done` to a callback with more parameters than the row.
  const routes: Array<[string, string, unknown]> = [
    ['get', '/portal/collections', undefined],
    ['delete', '/portal/collections/fasteners', undefined],
    ['post', '/portal/collections/fasteners/reindex', undefined],
    ['patch', '/portal/collections/fasteners/default-visibility', { default_visibility: 'public' }],
    ['delete', '/portal/verticals/fasteners', undefined],
    ['post', '/portal/verticals/fasteners/reindex', undefined],
  ];

  it.each(routes)('%s %s answers 401 to an API key, even an admin one', async (method, path, body) => {
    const key = h.as(newTenant(), ['admin']) as unknown as Record<string, (p: string, b?: unknown) => Promise<{ status: number; body: unknown }>>;
    const res = await key[method]!(path, body);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Missing or invalid portal token' });
  });
});
