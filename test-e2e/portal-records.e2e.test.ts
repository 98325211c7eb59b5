import { eventually } from '@trove/testing';
import { bearer, useTrove } from './support/system';
import { portalAuth, signUp } from './support/portal';

/**
 * The portal's records through the gateway with a portal token: a file uploaded through the portal, the collection
 * listed and browsed, a record fixed and found by its new name, the collection made public and then deleted, with
 * private search and the Open API following each step.
 */
jest.setTimeout(120_000);

const trove = useTrove();
const api = trove.api;

async function portalUpload(portal: Record<string, string>, path: string, csv: string) {
  const form = new FormData();
  form.append('file', new Blob([csv], { type: 'text/csv' }), 'parts.csv');
  const res = await fetch(`${trove.baseUrl}/api/v1/portal/upload/${path}`, { method: 'POST', headers: portal, body: form });
  return { status: res.status, body: (await res.json()) as any };
}

describe('portal records through the gateway', () => {
  it('uploads, lists, browses, fixes, publishes and deletes a collection, and every search follows', async () => {
    const { token } = await signUp(api);
    const portal = portalAuth(token);
    const names = (res: { body: { results: Array<{ name: string }> } }) => res.body.results.map((r) => r.name).sort();
    const search = async (query: string) => api('POST', '/api/v1/portal/search/brackets', { headers: portal, body: { query } });
    const openSearch = async (query: string) => api('GET', `/open/v1/search?q=${encodeURIComponent(query)}&collection=brackets`);

    const uploaded = await portalUpload(portal, 'brackets/product/upload', 'name,size\nCorner bracket zinc,40\nFlat bracket steel,60\nShelf bracket oak,80\n');
    expect(uploaded.status).toBe(201);
    expect(uploaded.body.summary).toMatchObject({ submitted: 3, accepted: 3, rejected: 0 });

    await eventually(async () => {
      const listed = await api('GET', '/api/v1/portal/collections', { headers: portal });
      expect(listed.status).toBe(200);
      expect(listed.body.collections).toEqual([
        { name: 'brackets', record_types: ['product'], total_records: 3, indexed: 3, pending: 0, processing: 0, failed: 0, has_pending_replace: false, default_visibility: 'private' },
      ]);
      expect(listed.body.total_records).toBe(3);
    }, 30_000);
    // The plan and its record limit as the account's usage states them.
    const [listed, usage] = [await api('GET', '/api/v1/portal/collections', { headers: portal }), await api('GET', '/api/v1/portal/usage', { headers: portal })];
    expect(listed.body).toMatchObject({ plan: usage.body.plan, record_limit: usage.body.records.included });

    const page = await api('GET', '/api/v1/portal/records?collection=brackets&limit=2', { headers: portal });
    expect(page.status).toBe(200);
    expect(page.body.total).toBe(3);
    expect(page.body.items).toHaveLength(2);
    const rest = await api('GET', '/api/v1/portal/records?collection=brackets&limit=2&offset=2', { headers: portal });
    const all = [...page.body.items, ...rest.body.items];
    expect(all.map((r: { name: string }) => r.name).sort()).toEqual(['Corner bracket zinc', 'Flat bracket steel', 'Shelf bracket oak']);
    const oak = all.find((r: { name: string }) => r.name === 'Shelf bracket oak');
    expect(oak.collection_data).toEqual({ size: 80 });

    const patched = await api('PATCH', `/api/v1/portal/records/${oak.id}`, { headers: portal, body: { name: 'Shelf bracket walnut', collection_data: { finish: 'oiled' } } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Shelf bracket walnut', collection_data: { size: 80, finish: 'oiled' }, indexing_status: 'indexed' });
    expect(names(await search('walnut'))).toEqual(['Shelf bracket walnut']);
    expect((await search('oak')).body.results).toEqual([]);

    // Someone else's portal sees none of it.
    const other = portalAuth((await signUp(api)).token);
    expect((await api('GET', `/api/v1/portal/records/${oak.id}`, { headers: other })).status).toBe(404);
    expect((await api('DELETE', '/api/v1/portal/collections/brackets', { headers: other })).status).toBe(404);
    expect((await api('POST', '/api/v1/portal/search/brackets', { headers: other, body: { query: 'bracket' } })).body.results).toEqual([]);

    const published = await api('PATCH', '/api/v1/portal/collections/brackets/default-visibility', { headers: portal, body: { default_visibility: 'public' } });
    expect(published.body).toEqual({ collection: 'brackets', default_visibility: 'public', records_updated: 3 });
    expect((await api('GET', '/api/v1/portal/collections', { headers: portal })).body.collections).toMatchObject([{ name: 'brackets', default_visibility: 'public' }]);
    await eventually(async () => expect(names(await openSearch('bracket'))).toEqual(['Corner bracket zinc', 'Flat bracket steel', 'Shelf bracket walnut']), 30_000);

    const deleted = await api('DELETE', '/api/v1/portal/collections/brackets', { headers: portal });
    expect(deleted.body).toEqual({ collection: 'brackets', records_archived: 3 });
    expect((await search('bracket')).body.results).toEqual([]);
    expect((await openSearch('bracket')).body.results).toEqual([]);
    expect((await api('GET', '/api/v1/portal/records?collection=brackets', { headers: portal })).body).toEqual({ items: [], total: 0 });
  });

  it('refuses the portal record routes without a portal token and with an API key', async () => {
    const { token } = await signUp(api);
    const key = await api('POST', '/api/v1/portal/keys', { headers: portalAuth(token), body: { name: 'admin', scopes: ['admin'] } });
    expect(key.status).toBe(201);
    for (const [method, path] of [
      ['GET', '/api/v1/portal/collections'],
      ['GET', '/api/v1/portal/records?collection=brackets'],
      ['POST', '/api/v1/portal/search/brackets'],
      ['DELETE', '/api/v1/portal/collections/brackets'],
    ] as const) {
      expect((await api(method, path)).status).toBe(401);
      expect((await api(method, path, { headers: bearer(key.body.key) })).status).toBe(401);
    }
  });

  it('answers the record and collection maintenance routes, in both vocabularies, for good and bad input', async () => {
    const portal = portalAuth((await signUp(api)).token);
    const other = portalAuth((await signUp(api)).token);
    const uploaded = await portalUpload(portal, 'hinges/part/upload', 'name,size\nButt hinge brass,75\nPiano hinge steel,900\n');
    expect(uploaded.status).toBe(201);
    const items: Array<{ id: string; name: string }> = (await api('GET', '/api/v1/portal/records?collection=hinges', { headers: portal })).body.items;
    const [brass, piano] = ['Butt hinge brass', 'Piano hinge steel'].map((n) => items.find((r) => r.name === n)!);
    const unknownId = '00000000-0000-4000-8000-000000000000';
    const locOf = (res: { body: { detail: Array<{ loc: string[] }> } }) => res.body.detail.map((d) => d.loc.join('.'));

    const read = await api('GET', `/api/v1/portal/records/${brass.id}`, { headers: portal });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: brass.id, name: 'Butt hinge brass', collection: 'hinges', record_type: 'part', visibility: 'private', generation: 1 });
    expect(read.body).toHaveProperty('source_name');
    expect(locOf(await api('GET', '/api/v1/portal/records?record_type=part', { headers: portal }))).toEqual(['query.collection']);
    expect(locOf(await api('GET', '/api/v1/portal/records?collection=hinges&limit=101', { headers: portal }))).toEqual(['query.limit']);
    expect(locOf(await api('PATCH', `/api/v1/portal/records/${brass.id}`, { headers: portal, body: { record_type: 'x' } }))).toEqual(['body.record_type']);

    // Visibility: the Open API serves the record once it is public.
    const published = await api('PATCH', `/api/v1/portal/records/${brass.id}/visibility`, { headers: portal, body: { visibility: 'public' } });
    expect(published.status).toBe(200);
    expect(published.body).toEqual({ id: brass.id, visibility: 'public', updated_at: expect.any(String) });
    expect((await api('GET', `/open/v1/records/${brass.id}`)).status).toBe(200);
    expect(locOf(await api('PATCH', `/api/v1/portal/records/${brass.id}/visibility`, { headers: portal, body: { visibility: 'secret' } }))).toEqual(['body.visibility']);
    expect((await api('PATCH', `/api/v1/portal/records/${brass.id}/visibility`, { headers: other, body: { visibility: 'private' } })).status).toBe(404);

    // Reindexing one record and a whole collection.
    expect((await api('POST', `/api/v1/portal/records/${brass.id}/reindex`, { headers: portal })).body).toEqual({ record_id: brass.id, jobs: 1 });
    expect((await api('POST', '/api/v1/portal/records/not-a-uuid/reindex', { headers: portal })).status).toBe(422);
    expect((await api('POST', `/api/v1/portal/records/${unknownId}/reindex`, { headers: portal })).status).toBe(404);
    expect((await api('POST', '/api/v1/portal/collections/hinges/reindex', { headers: portal })).body).toEqual({ collection: 'hinges', records_queued: 2 });
    expect((await api('POST', '/api/v1/portal/collections/no-such/reindex', { headers: portal })).status).toBe(404);
    expect((await api('POST', '/api/v1/portal/collections/hinges/reindex', { headers: other })).status).toBe(404);
    expect((await api('POST', '/api/v1/portal/collections/bad!name/reindex', { headers: portal })).status).toBe(422);
    expect((await api('PATCH', '/api/v1/portal/collections/hinges/default-visibility', { headers: portal, body: { default_visibility: 'everyone' } })).status).toBe(422);

    // The older vocabulary reads and writes the same records.
    const entity = await api('GET', `/api/v1/portal/entities/${piano.id}`, { headers: portal });
    expect(entity.body).toMatchObject({ id: piano.id, vertical: 'hinges', entity_type: 'part', vertical_data: { size: 900 } });
    expect(entity.body).not.toHaveProperty('collection_data');
    const fixed = await api('PATCH', `/api/v1/portal/entities/${piano.id}`, { headers: portal, body: { vertical_data: { finish: 'zinc' } } });
    expect(fixed.status).toBe(200);
    expect(fixed.body.vertical_data).toEqual({ size: 900, finish: 'zinc' });
    expect(locOf(await api('PATCH', `/api/v1/portal/entities/${piano.id}`, { headers: portal, body: { collection_data: {} } }))).toEqual(['body.collection_data']);
    expect((await api('GET', `/api/v1/portal/entities/${piano.id}`, { headers: other })).status).toBe(404);
    expect((await api('POST', '/api/v1/portal/verticals/hinges/reindex', { headers: portal })).body).toEqual({ vertical: 'hinges', entities_queued: 2 });

    // Deleting a record, an entity and what is left of a vertical.
    expect((await api('DELETE', `/api/v1/portal/records/${brass.id}`, { headers: other })).status).toBe(404);
    expect((await api('DELETE', `/api/v1/portal/records/${brass.id}`, { headers: portal })).status).toBe(204);
    expect((await api('GET', `/api/v1/portal/records/${brass.id}`, { headers: portal })).body.status).toBe('archived');
    expect((await api('GET', `/open/v1/records/${brass.id}`)).status).toBe(404);
    expect((await api('DELETE', `/api/v1/portal/verticals/hinges`, { headers: portal })).body).toEqual({ vertical: 'hinges', entities_archived: 1 });
    expect((await api('DELETE', `/api/v1/portal/entities/${piano.id}`, { headers: portal })).status).toBe(204);
    expect((await api('GET', '/api/v1/portal/records?collection=hinges', { headers: portal })).body).toEqual({ items: [], total: 0 });
  });
});
