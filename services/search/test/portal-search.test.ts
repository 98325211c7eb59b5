import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { TestService } from '@trove/testing';
import { clientOf, product, startSystem, type System } from './helpers';

/** A person signed in to the portal, as the gateway forwards a portal JWT (principal `user:<id>`, scope admin). */
function portalOf(svc: TestService, tenantId: string) {
  const principal = `user:${randomUUID()}`;
  return {
    post: (path: string, body: object) => request(svc.instance.app).post(path).set(svc.as(tenantId, ['admin'], principal)).send(body),
    patch: (path: string, body: object) => request(svc.instance.app).patch(path).set(svc.as(tenantId, ['admin'], principal)).send(body),
    delete: (path: string) => request(svc.instance.app).delete(path).set(svc.as(tenantId, ['admin'], principal)),
  };
}

/** What two answers to one search share: everything but the timings and whether the cache answered. */
function comparable(body: { results: unknown[]; pagination: unknown; metadata: Record<string, unknown> }) {
  const { processing_time_ms: _time, timings: _timings, cache_hit: _cache, ...metadata } = body.metadata;
  return { results: body.results, pagination: body.pagination, metadata };
}

let sys: System;
beforeAll(async () => {
  sys = await startSystem();
});
afterAll(() => sys.stop());

describe('POST /portal/search/{collection}', () => {
  it('answers exactly as the key search does, formats and validation included', async () => {
    const t = sys.tenant();
    const portal = portalOf(sys.search, t.id);
    expect((await t.records.post('/records', product())).status).toBe(201);
    expect((await t.records.post('/records', product({ name: 'Hex nut M8 zinc', collection_data: { material: 'steel' } }))).status).toBe(201);
    for (const body of [{ query: 'hex bolt' }, { query: 'HB-M8-40-A2' }, { filters: { material: 'steel' } }, { query: 'hex', limit: 1, offset: 1 }]) {
      const [key, signedIn] = [await t.search.post('/search/fasteners', body), await portal.post('/portal/search/fasteners', body)];
      expect(signedIn.status).toBe(200);
      expect(comparable(signedIn.body)).toEqual(comparable(key.body));
    }
    const yaml = await portal.post('/portal/search/fasteners', { query: 'hex bolt', format: 'yaml' });
    expect(yaml.status).toBe(200);
    expect(yaml.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(yaml.text).toContain('Hex bolt M8x40');
    for (const [path, body] of [['/fasteners', {}], ['/fasteners', { query: 'x', limit: 0 }], ['/has space', { query: 'x' }]] as const) {
      const [key, signedIn] = [await t.search.post(`/search${path}`, body), await portal.post(`/portal/search${path}`, body)];
      expect(signedIn.status).toBe(422);
      expect(signedIn.body).toEqual(key.body);
    }
  });

  it("searches only the signed-in person's tenant", async () => {
    const owner = sys.tenant();
    expect((await owner.records.post('/records', product({ name: 'Tenant-only flange bolt' }))).status).toBe(201);
    const other = portalOf(sys.search, sys.tenant().id);
    const res = await other.post('/portal/search/fasteners', { query: 'flange bolt' });
    expect(res.status).toBe(200);
    expect(res.body.results).toEqual([]);
  });

  it('answers 401 to an API key, even an admin one', async () => {
    const t = sys.tenant();
    const res = await clientOf(sys.search, t.id, ['admin']).post('/portal/search/fasteners', { query: 'bolt' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Missing or invalid portal token' });
  });
});

describe("what portal search sees after the portal's record and collection actions", () => {
  it('finds a record by the name a portal PATCH gave it at once', async () => {
    const t = sys.tenant();
    const records = portalOf(sys.records, t.id);
    const search = portalOf(sys.search, t.id);
    const { id } = (await t.records.post('/records', product())).body;
    const patched = await records.patch(`/portal/records/${id}`, { name: 'Carriage bolt M10 galvanised' });
    expect(patched.body.indexing_status).toBe('indexed');
    const res = await search.post('/portal/search/fasteners', { query: 'carriage galvanised' });
    expect(res.body.results.map((r: { record_id: string; name: string }) => [r.record_id, r.name])).toEqual([[id, 'Carriage bolt M10 galvanised']]);
  });

  it('finds nothing of a collection once the portal deleted it, and another collection is untouched', async () => {
    const t = sys.tenant();
    const records = portalOf(sys.records, t.id);
    const search = portalOf(sys.search, t.id);
    for (let i = 0; i < 3; i++) await t.records.post('/records', product({ name: `Doomed bolt ${i}`, collection: 'doomed' }));
    await t.records.post('/records', product({ name: 'Kept bolt', collection: 'kept' }));
    expect((await search.post('/portal/search/doomed', { query: 'bolt' })).body.results).toHaveLength(3);
    expect((await records.delete('/portal/collections/doomed')).body).toEqual({ collection: 'doomed', records_archived: 3 });
    const after = await search.post('/portal/search/doomed', { query: 'bolt' });
    expect(after.body.results).toEqual([]);
    expect(after.body.metadata.total_estimate).toBe(0);
    expect((await search.post('/portal/search/kept', { query: 'bolt' })).body.results).toHaveLength(1);
  });
});
