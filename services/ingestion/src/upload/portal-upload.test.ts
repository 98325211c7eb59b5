import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { IDENTITY_HEADER, signIdentity } from '@trove/platform';
import type { TestService } from '@trove/testing';
import { fixtureBytes } from '../../test/fixtures/fixtures';
import { as, newTenant, recordsOf, startSystem, type System } from '../../test/helpers';

/** POST /portal/upload/{collection}/{record_type}/upload: the key file upload for a person signed in to the portal. */
let system: System;
beforeAll(async () => {
  system = await startSystem();
});
afterAll(() => system.stop());

/** A signed-in portal user of a new tenant, as the gateway forwards one. */
function portalUser() {
  const tenantId = newTenant();
  const identity = { tenantId, principal: `user:${randomUUID()}`, scopes: ['admin' as const] };
  return {
    tenantId,
    post: (path: string, svc: TestService = system.ingestion) =>
      request(svc.instance.app).post(path).set(IDENTITY_HEADER, signIdentity(identity, svc.ctx.config.INTERNAL_TOKEN_SECRET, 3600)),
  };
}

/** The same request to the key route (as another tenant with the upload scope) and to the portal route. */
async function both(path: string, send: (req: request.Test) => request.Test, svc: TestService = system.ingestion) {
  const key = await send(as(svc, newTenant()).post(`/upload${path}`));
  const user = portalUser();
  const portal = await send(user.post(`/portal/upload${path}`, svc));
  return { key, portal, tenantId: user.tenantId };
}

/** An upload result without what differs between two uploads of one file (ids and timings). */
function comparable(body: { upload_id?: string; metadata?: Record<string, unknown> }) {
  const { upload_id: _id, metadata, ...rest } = body;
  const { processing_time_ms: _time, ...kept } = metadata ?? {};
  return { ...rest, metadata: kept };
}

describe('POST /portal/upload/{collection}/{record_type}/upload', () => {
  it('stores the file as the key upload does and answers the same upload result', async () => {
    const file = fixtureBytes('products.csv');
    const { key, portal, tenantId } = await both('/parts/product/upload', (r) => r.attach('file', file, { filename: 'products.csv', contentType: 'text/csv' }));
    expect(portal.status).toBe(201);
    expect(key.status).toBe(201);
    expect(comparable(portal.body)).toEqual(comparable(key.body));
    const stored = await recordsOf(system, tenantId, 'parts');
    expect(stored.length).toBe(portal.body.summary.accepted);
    expect(stored.every((r) => r.source_type === 'file_upload' && r.source_name === 'products.csv' && r.record_type === 'product')).toBe(true);
  });

  it('reads the same options (record_tag for XML)', async () => {
    const file = fixtureBytes('catalog.xml');
    const { key, portal } = await both('/parts/product/upload?record_tag=product', (r) => r.attach('file', file, { filename: 'catalog.xml' }));
    expect(portal.status).toBe(201);
    expect(comparable(portal.body)).toEqual(comparable(key.body));
  });

  it.each([
    ['no file', (r: request.Test) => r.field('name_column', 'title')],
    ['a file of no known format', (r: request.Test) => r.attach('file', Buffer.from('\x00\x01 not a table'), { filename: 'data.bin' })],
    ['a JSON body (not even valid JSON) instead of a form', (r: request.Test) => r.set('content-type', 'application/json').send('{"records": [ not json')],
  ])('refuses %s exactly as the key upload does', async (_what, send) => {
    const { key, portal } = await both('/parts/product/upload', send);
    expect(portal.status).toBeGreaterThanOrEqual(400);
    expect([portal.status, portal.body]).toEqual([key.status, key.body]);
  });

  it('answers 413 over the upload limit, as the key upload does, and stores nothing', async () => {
    const small = await system.startIngestion({ UPLOAD_MAX_BYTES: '2000' });
    const big = Buffer.from(`name,price\n${Array.from({ length: 300 }, (_, i) => `Bolt number ${i},${i}`).join('\n')}\n`);
    const { key, portal, tenantId } = await both('/big/product/upload', (r) => r.attach('file', big, { filename: 'big.csv' }), small);
    expect(portal.status).toBe(413);
    expect([portal.status, portal.body]).toEqual([key.status, key.body]);
    expect(await recordsOf(system, tenantId, 'big')).toEqual([]);
  });

  it('answers 422 for a collection name the key upload refuses too', async () => {
    const { key, portal } = await both('/has%20space/product/upload', (r) => r.attach('file', fixtureBytes('products.csv'), { filename: 'products.csv' }));
    expect(portal.status).toBe(422);
    expect(portal.body).toEqual(key.body);
  });

  it('answers 401 to an API key, even an admin one', async () => {
    const res = await as(system.ingestion, newTenant(), ['admin'])
      .post('/portal/upload/parts/product/upload')
      .attach('file', fixtureBytes('products.csv'), { filename: 'products.csv' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Missing or invalid portal token' });
  });
});
