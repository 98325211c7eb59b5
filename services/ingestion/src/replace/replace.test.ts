import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import request from 'supertest';
import { RECORDS_BULK_UPSERT } from '@trove/contracts';
import { IDENTITY_HEADER, signIdentity } from '@trove/platform';
import type { TestService } from '@trove/testing';
import { fixtureBytes } from '../../test/fixtures/fixtures';
import { as, newTenant, startSystem, type System } from '../../test/helpers';

/** POST /portal/collections/{name}/replace: a file into a staging generation, against the real records service. */
let system: System;

beforeAll(async () => {
  system = await startSystem();
});
afterAll(() => system.stop());

/** A signed-in portal user of a tenant (on a plan), as the gateway forwards one. */
function portalUser(plan?: string) {
  const tenantId = newTenant();
  const principal = `user:${randomUUID()}`;
  const headers = (svc: TestService) => ({
    [IDENTITY_HEADER]: signIdentity({ tenantId, principal, scopes: ['admin'], plan }, svc.ctx.config.INTERNAL_TOKEN_SECRET, 3600),
  });
  return {
    tenantId,
    replace(collection: string, file: Buffer, fileName: string, query = '?record_type=product', svc = system.ingestion) {
      return request(svc.instance.app)
        .post(`/portal/collections/${collection}/replace${query}`)
        .set(headers(svc))
        .attach('file', file, { filename: fileName, contentType: 'application/octet-stream' });
    },
    status: (collection: string) => request(system.records.instance.app).get(`/portal/collections/${collection}/replace-status`).set(headers(system.records)),
    /** The collection's active records as records' listing counts them (active generation only). */
    async live(collection: string): Promise<number> {
      const res = await as(system.records, tenantId, ['records']).get('/collections');
      return (res.body.collections as Array<{ name: string; total_records: number }>).find((c) => c.name === collection)?.total_records ?? 0;
    },
    upload: (collection: string, fileName: string) =>
      as(system.ingestion, tenantId).post(`/upload/${collection}/product/upload`).attach('file', fixtureBytes(fileName), { filename: fileName }),
  };
}

const csv = (names: string[]) => Buffer.from(`name,price\n${names.map((n, i) => `${n},${i}`).join('\n')}\n`);

describe('POST /portal/collections/{name}/replace', () => {
  it('writes the file into a staging generation and leaves production live', async () => {
    const user = portalUser();
    expect((await user.upload('bolts', 'products.csv')).status).toBe(201);

    const res = await user.replace('bolts', fixtureBytes('products.json'), 'products.json', '?record_type=product&source_name=Spring%20catalog');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'complete',
      summary: { submitted: 3, accepted: 3, rejected: 0, dedup_skipped: 0 },
      errors: [],
      metadata: { reconciliation_passed: true },
      staging: { generation: 2, status: 'staging', collection: 'bolts' },
    });
    expect(res.body.upload_id).toEqual(expect.any(String));
    expect(await user.live('bolts')).toBe(3);
    expect((await user.status('bolts')).body).toMatchObject({ has_pending_replace: true, staging_generation: 2, staging_status: 'staging', total: 3 });
  });

  it('reads XML with record_tag, and refuses XML without it (422) before staging anything', async () => {
    const user = portalUser();
    expect((await user.upload('xml', 'products.csv')).status).toBe(201);
    const missing = await user.replace('xml', fixtureBytes('catalog.xml'), 'catalog.xml');
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0].loc).toEqual(['query', 'record_tag']);
    expect((await user.status('xml')).body.has_pending_replace).toBe(false);
    const res = await user.replace('xml', fixtureBytes('catalog.xml'), 'catalog.xml', '?record_type=product&record_tag=product');
    expect(res.status).toBe(200);
    expect(res.body.summary.accepted).toBeGreaterThan(0);
  });

  it('answers 422 without record_type, for an unreadable file and for a file of no records, staging nothing', async () => {
    const user = portalUser();
    expect((await user.upload('bolts', 'products.csv')).status).toBe(201);
    const noType = await user.replace('bolts', csv(['Nut']), 'nuts.csv', '');
    expect(noType.status).toBe(422);
    expect(noType.body.detail[0].loc).toEqual(['query', 'record_type']);
    const broken = await user.replace('bolts', fixtureBytes('invalid.json'), 'invalid.json');
    expect(broken.status).toBe(422);
    expect(broken.body.detail[0].loc).toEqual(['body', 'file']);
    const empty = await user.replace('bolts', Buffer.from('name,price\n'), 'empty.csv');
    expect(empty.status).toBe(422);
    const noFile = await request(system.ingestion.instance.app)
      .post('/portal/collections/bolts/replace?record_type=product')
      .set(system.ingestion.as(user.tenantId, ['admin'], `user:${randomUUID()}`))
      .field('other', 'x');
    expect(noFile.status).toBe(422);
    expect((await user.status('bolts')).body.has_pending_replace).toBe(false);
  });

  it('answers 413 for a file over the limit, staging nothing', async () => {
    const small = await system.startIngestion({ UPLOAD_MAX_BYTES: '2000' });
    const user = portalUser();
    expect((await user.upload('bolts', 'products.csv')).status).toBe(201);
    const big = csv(Array.from({ length: 300 }, (_, i) => `Bolt number ${i}`));
    const res = await user.replace('bolts', big, 'big.csv', '?record_type=product', small);
    expect(res.status).toBe(413);
    expect((await user.status('bolts')).body.has_pending_replace).toBe(false);
  });

  it("answers 402 when the tenant's other records plus the file's exceed the plan, and writes nothing", async () => {
    const user = portalUser('free');
    const others = csv(Array.from({ length: 45 }, (_, i) => `Screw ${i}`));
    expect((await as(system.ingestion, user.tenantId).post('/upload/screws/product/upload').attach('file', others, { filename: 'screws.csv' })).status).toBe(201);
    expect((await user.upload('bolts', 'products.csv')).status).toBe(201);

    const res = await user.replace('bolts', csv(Array.from({ length: 10 }, (_, i) => `Bolt ${i}`)), 'bolts.csv');
    expect(res.status).toBe(402);
    expect(typeof res.body.detail).toBe('string');
    expect((await user.status('bolts')).body.has_pending_replace).toBe(false);
    expect(await user.live('bolts')).toBe(3);
    expect(await user.live('screws')).toBe(45);
    // Five fit: 45 + 5 is the free plan's 50 (the collection's own 3 records are the ones replaced).
    expect((await user.replace('bolts', csv(['A', 'B', 'C', 'D', 'E']), 'five.csv')).status).toBe(200);
  });

  it('answers 404 for a collection the tenant does not have', async () => {
    const user = portalUser();
    expect((await user.replace('nowhere', csv(['Nut']), 'nuts.csv')).status).toBe(404);
  });

  it('lets one of two concurrent replaces in: one 200, one 409', async () => {
    const user = portalUser();
    expect((await user.upload('bolts', 'products.csv')).status).toBe(201);
    const answers = await Promise.all([user.replace('bolts', csv(['Nut A', 'Nut B']), 'a.csv'), user.replace('bolts', csv(['Nut C']), 'b.csv')]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    const status = (await user.status('bolts')).body;
    const winner = answers.find((a) => a.status === 200)!;
    expect(status.total).toBe(winner.body.summary.accepted);
  });

  it('is closed to an API key (401)', async () => {
    const tenant = newTenant();
    const res = await as(system.ingestion, tenant, ['admin'])
      .post('/portal/collections/bolts/replace?record_type=product')
      .attach('file', csv(['Nut']), { filename: 'nuts.csv' });
    expect(res.status).toBe(401);
  });
});

/**
 * A records service whose writes into a staging generation fail (503) after the first `allowed`, as when records
 * goes away during the upload: everything else is passed through to the real one.
 */
async function failingStagingWrites(allowed: number): Promise<{ url: string; close(): Promise<void> }> {
  let written = 0;
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (d: Buffer) => parts.push(d));
    req.on('end', async () => {
      const body = Buffer.concat(parts);
      if (req.url === RECORDS_BULK_UPSERT.path && body.includes('"generation"') && written++ >= allowed) {
        res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ detail: 'records is going away' }));
        return;
      }
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !['host', 'content-length', 'connection'].includes(k))) as Record<string, string>;
      const upstream = await fetch(`${system.recordsUrl}${req.url}`, { method: req.method, headers, body: body.length > 0 ? body : undefined });
      res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' }).end(Buffer.from(await upstream.arrayBuffer()));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) };
}

describe('a replace upload that cannot write the whole file', () => {
  it('gives the staging up (503) and leaves the collection as it was, so it can be replaced again', async () => {
    const proxy = await failingStagingWrites(1);
    try {
      const flaky = await system.startIngestion({ RECORDS_URL: proxy.url, INGEST_CHUNK_SIZE: '2' });
      const user = portalUser();
      expect((await user.upload('bolts', 'products.csv')).status).toBe(201);
      const res = await user.replace('bolts', csv(['Nut A', 'Nut B', 'Nut C', 'Nut D', 'Nut E']), 'nuts.csv', '?record_type=product', flaky);
      expect(res.status).toBe(503);
      expect((await user.status('bolts')).body.has_pending_replace).toBe(false);
      expect(await user.live('bolts')).toBe(3);
      expect((await user.replace('bolts', csv(['Nut A']), 'nut.csv')).status).toBe(200);
    } finally {
      await proxy.close();
    }
  });
});
