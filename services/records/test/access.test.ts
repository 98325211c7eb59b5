import request from 'supertest';
import { bolt, newTenant, startRecords, type Client, type Harness } from './helpers';

let h: Harness;
let tenantA: Client;
let tenantB: Client;
let recordOfA: string;

beforeAll(async () => {
  h = await startRecords();
  tenantA = h.as(newTenant());
  tenantB = h.as(newTenant());
  recordOfA = (await tenantA.post('/records', bolt({ collection: 'shared-name' }))).body.id;
});
afterAll(() => h.stop());

const readA = async () => (await tenantA.get(`/records/${recordOfA}`)).body;

describe('tenant isolation', () => {
  it('answers 404 for another tenant’s record exactly as for a missing one', async () => {
    const other = await tenantB.get(`/records/${recordOfA}`);
    const missing = await tenantB.get('/records/00000000-0000-4000-8000-000000000000');
    expect(other.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(Object.keys(other.body)).toEqual(Object.keys(missing.body));
  });

  it('answers 404 when another tenant updates, archives or changes the visibility of a record', async () => {
    expect((await tenantB.patch(`/records/${recordOfA}`, { name: 'taken' })).status).toBe(404);
    expect((await tenantB.delete(`/records/${recordOfA}`)).status).toBe(404);
    expect((await tenantB.patch(`/records/${recordOfA}/visibility`, { visibility: 'public' })).status).toBe(404);
    expect(await readA()).toMatchObject({ name: 'M8 hex bolt', status: 'active', visibility: 'private', version: 1 });
  });

  it('shows another tenant nothing in listings', async () => {
    expect((await tenantB.get('/records')).body).toEqual({ items: [], cursor: null, has_more: false });
    expect((await tenantB.get('/records?collection=shared-name&q=bolt')).body.items).toEqual([]);
    expect((await tenantA.get('/records?collection=shared-name')).body.items).toHaveLength(1);
  });

  it('counts another tenant’s ids as zero in bulk calls and leaves them unchanged', async () => {
    const ids = { record_ids: [recordOfA] };
    expect((await tenantB.patch('/records/bulk', { ...ids, update: { name: 'taken' } })).body).toEqual({ updated: 0 });
    expect((await tenantB.post('/records/bulk-visibility', { ...ids, visibility: 'public' })).body).toEqual({ updated: 0 });
    expect((await tenantB.post('/records/bulk-delete', ids)).body).toEqual({ deleted: 0 });
    expect(await readA()).toMatchObject({ name: 'M8 hex bolt', status: 'active', visibility: 'private', version: 1 });
  });

  it('keeps collection defaults per tenant', async () => {
    await tenantB.patch('/collections/shared-name/default-visibility', { default_visibility: 'public' });
    expect((await tenantA.post('/records', bolt({ collection: 'shared-name' }))).body.visibility).toBe('private');
    expect((await tenantB.post('/records', bolt({ collection: 'shared-name' }))).body.visibility).toBe('public');
  });
});

describe('scopes and identity', () => {
  // Every row has three entries: with fewer, jest would pass its done callback as the body.
  const routes: Array<[string, string, unknown]> = [
    ['post', '/records', bolt()],
    ['get', '/records', undefined],
    ['get', '/records/00000000-0000-4000-8000-000000000000', undefined],
    ['patch', '/records/00000000-0000-4000-8000-000000000000', { name: 'x' }],
    ['delete', '/records/00000000-0000-4000-8000-000000000000', undefined],
    ['patch', '/records/bulk', { record_ids: ['00000000-0000-4000-8000-000000000000'], update: {} }],
    ['post', '/records/bulk-delete', { record_ids: ['00000000-0000-4000-8000-000000000000'] }],
    ['patch', '/records/00000000-0000-4000-8000-000000000000/visibility', { visibility: 'public' }],
    ['post', '/records/bulk-visibility', { record_ids: ['00000000-0000-4000-8000-000000000000'], visibility: 'public' }],
    ['patch', '/collections/c/default-visibility', { default_visibility: 'public' }],
    ['post', '/records/retry-reset', undefined],
  ];

  it.each(routes)('%s %s answers 403 to an identity with only the search scope', async (method, path, body) => {
    const client = h.as(newTenant(), ['search', 'upload']) as unknown as Record<string, (p: string, b?: unknown) => request.Test>;
    const res = await client[method]!(path, body);
    expect(res.status).toBe(403);
    expect(typeof res.body.detail).toBe('string');
  });

  it.each(routes)('%s %s answers 401 without an internal identity', async (method, path, body) => {
    const agent = request(h.svc.instance.app) as unknown as Record<string, (p: string) => request.Test>;
    const req = agent[method]!(path);
    const res = await (body === undefined ? req : req.send(body as object));
    expect(res.status).toBe(401);
  });

  it('answers 401 for a forged identity token', async () => {
    const res = await request(h.svc.instance.app).get('/records').set('x-trove-identity', 'forged.token.value');
    expect(res.status).toBe(401);
  });

  it('lets the admin scope do everything the records scope does', async () => {
    const admin = h.as(newTenant(), ['admin']);
    const created = await admin.post('/records', bolt());
    expect(created.status).toBe(201);
    expect((await admin.get(`/records/${created.body.id}`)).status).toBe(200);
  });

  it('checks the scope before validating input', async () => {
    const res = await h.as(newTenant(), ['search']).post('/records', { nonsense: true });
    expect(res.status).toBe(403);
  });

  it('answers 404 with a detail for an unknown route', async () => {
    const res = await tenantA.get('/nothing-here');
    expect(res.status).toBe(404);
    expect(typeof res.body.detail).toBe('string');
  });
});
