import { randomUUID } from 'node:crypto';
import { eventually } from '@trove/testing';
import { TOPOLOGY, bearer, listeningPorts, useTrove } from './support/system';

jest.setTimeout(120_000);

const trove = useTrove();
const api = trove.api;

const keyOf = async (tenant: string, scopes: string[]) => bearer(await trove.keyFor(tenant, scopes));

describe('admin through the gateway', () => {
  it("lists the caller's own tenant with its active records and collections, and no other", async () => {
    const tenant = randomUUID();
    const admin = await keyOf(tenant, ['admin']);
    const other = await keyOf(randomUUID(), ['admin']);
    for (const collection of ['tools', 'fasteners', 'fasteners']) {
      expect((await api('POST', '/api/v1/records', { headers: admin, body: { name: `A ${collection} record`, collection, record_type: 'product' } })).status).toBe(201);
    }
    expect((await api('POST', '/api/v1/records', { headers: other, body: { name: 'elsewhere', collection: 'private', record_type: 'x' } })).status).toBe(201);

    const res = await api('GET', '/api/v1/admin/tenants', { headers: admin });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([{ tenant_id: tenant, record_count: 3, collections: ['fasteners', 'tools'], created_at: expect.any(String) }]);
    expect(Date.parse(res.body[0].created_at)).toBeLessThanOrEqual(Date.now());

    expect((await api('GET', '/api/v1/admin/tenants', { headers: await keyOf(tenant, ['records', 'search', 'upload']) })).status).toBe(403);
    expect((await api('GET', '/api/v1/admin/tenants')).status).toBe(401);
  });

  it('counts records by status and indexing status, with the queue drained once search has indexed them', async () => {
    const tenant = randomUUID();
    const admin = await keyOf(tenant, ['admin']);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await api('POST', '/api/v1/records', { headers: admin, body: { name: `Bolt ${i}`, collection: 'parts', record_type: 'product' } });
      ids.push(res.body.id);
    }
    expect((await api('DELETE', `/api/v1/records/${ids[0]}`, { headers: admin })).status).toBe(204);
    await eventually(async () => {
      const res = await api('GET', '/api/v1/admin/stats', { headers: admin });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        total_records: 3,
        records_by_status: { active: 2, archived: 1, draft: 0 },
        indexing_status: { indexed: 3, pending: 0, processing: 0, failed: 0 },
        queue_depth: 0,
      });
    });
    expect((await api('GET', '/api/v1/admin/stats', { headers: await keyOf(tenant, ['records']) })).status).toBe(403);

    const collection = await api('POST', '/api/v1/admin/reindex/parts', { headers: admin });
    expect(collection.status).toBe(200);
    expect(collection.body).toEqual({ collection: 'parts', records_reset: 2, message: expect.any(String) });
    const record = await api('POST', `/api/v1/admin/reindex/record/${ids[1]}`, { headers: admin });
    expect(record.status).toBe(200);
    expect(record.body).toEqual({ record_id: ids[1], status: 'pending', message: expect.any(String) });
    // Re-indexed, the records are found again.
    await eventually(async () => {
      const stats = await api('GET', '/api/v1/admin/stats', { headers: admin });
      expect(stats.body.indexing_status).toEqual({ indexed: 3, pending: 0, processing: 0, failed: 0 });
      const found = await api('POST', '/api/v1/search/parts', { headers: admin, body: { query: 'bolt' } });
      expect(found.body.results.map((r: { record_id: string }) => r.record_id).sort()).toEqual([ids[1], ids[2]].sort());
    });
    expect((await api('POST', '/api/v1/admin/reindex/record/not-a-uuid', { headers: admin })).status).toBe(422);
    expect((await api('POST', '/api/v1/admin/reindex/nowhere', { headers: admin })).status).toBe(404);
  });
});

describe('health through the gateway', () => {
  it.each(['/health', '/api/v1/health'])('%s answers ok without a key', async (path) => {
    const res = await api('GET', path);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ok' });
  });

  it.each(['/health/ready', '/api/v1/health/ready'])('%s checks what the gateway alone needs: its database, event bus and counter store', async (path) => {
    const res = await api('GET', path);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'ready',
      service: 'gateway',
      dependencies: { database: 'up', events: 'up', cache: 'up' },
    });
  });

  it('/api/v1/health/search reports the recent searches', async () => {
    const admin = await keyOf(randomUUID(), ['admin']);
    await api('POST', '/api/v1/records', { headers: admin, body: { name: 'Washer M8', collection: 'parts', record_type: 'product' } });
    await api('POST', '/api/v1/search/parts', { headers: admin, body: { query: 'washer' } });
    await api('POST', '/api/v1/search/parts', { headers: admin, body: { query: 'nothing like it' } });
    const res = await api('GET', '/api/v1/health/search');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'ok',
      latency_ms: { p50: expect.any(Number), p95: expect.any(Number), p99: expect.any(Number) },
      zero_result_rate: expect.any(Number),
      fallback_count: expect.any(Number),
    });
    expect(res.body.zero_result_rate).toBeGreaterThan(0);
    expect(res.body.zero_result_rate).toBeLessThan(1);
  });

  it.each(['/metrics', '/api/v1/metrics'])('%s is Prometheus text', async (path) => {
    const res = await api('GET', path);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    expect(res.text).toMatch(/^# HELP /m);
    expect(res.text).toContain('http_requests_total');
  });
});

/**
 * What a process of some or all services has of its own (the ports it opens, its /metrics, its readiness), checked in
 * the one-process run of the suite; the run with every service apart (TOPOLOGY) leaves it to that one rather than start
 * two more systems beside its own.
 */
const inTheOneProcessRun = TOPOLOGY === 'apart' ? describe.skip : describe;

inTheOneProcessRun('the whole system in one process', () => {
  // What only one process has (the ports it opens, one /metrics for every service), whatever topology the suite runs.
  const trove = useTrove({ apart: false });
  const api = trove.api;
  const keyOf = async (tenant: string, scopes: string[]) => bearer(await trove.keyFor(tenant, scopes));

  it("the gateway's /metrics also shows the metrics of the services in its process (a search's and an upload's)", async () => {
    const key = await keyOf(randomUUID(), ['records', 'search', 'upload']);
    const upload = await api('POST', '/api/v1/upload/metered/product/batch', { headers: key, body: { records: [{ name: 'Metered bolt' }] } });
    expect(upload.status).toBe(201);
    expect((await api('POST', '/api/v1/search/metered', { headers: key, body: { query: 'bolt' } })).status).toBe(200);

    const res = await api('GET', '/metrics');
    expect(res.status).toBe(200);
    // The search service's own latency histogram, and ingestion's chunk scheduler and request counts, each labelled with its service.
    expect(res.text).toMatch(/^trove_search_duration_seconds_count\{[^}]*service="search"[^}]*\} [1-9]/m);
    expect(res.text).toMatch(/^trove_scheduler_wait_seconds_count\{[^}]*scheduler="ingest_chunks"[^}]*service="ingestion"[^}]*\} [1-9]/m);
    expect(res.text).toMatch(/^http_requests_total\{[^}]*service="ingestion"[^}]*\} [1-9]/m);
    expect(res.text).toMatch(/^http_requests_total\{[^}]*service="gateway"[^}]*\} [1-9]/m);
    // One family per name, and the process's default metrics once.
    expect(res.text.match(/^# TYPE http_requests_total /gm)).toHaveLength(1);
    expect(res.text.match(/^process_start_time_seconds /gm)).toHaveLength(1);
  });

  it('opens no port but PORT: the services answer the gateway and each other in process', () => {
    expect(listeningPorts(trove.pid)).toEqual([Number(new URL(trove.baseUrl).port)]);
  });
});

inTheOneProcessRun('services started apart', () => {
  const apart = useTrove({ target: 'auth,records,ingestion,search,open,billing,connector,mcp' });

  it('each answers /health, /health/ready (its own dependencies) and /metrics on its own port, and nothing listens on PORT', async () => {
    const expected: Record<string, string[]> = {
      auth: ['database', 'events', 'cache'],
      records: ['database', 'events'],
      ingestion: ['database', 'events'],
      search: ['database', 'events', 'engine', 'cache'],
      open: ['database', 'events', 'cache'],
      billing: ['database', 'events'],
      connector: ['database', 'events'],
      mcp: [],
    };
    for (const [service, dependencies] of Object.entries(expected)) {
      const base = `http://127.0.0.1:${apart.servicePorts[service]}`;
      const health = await fetch(`${base}/health`);
      expect({ service, status: health.status, body: await health.json() }).toEqual({ service, status: 200, body: { status: 'ok', service } });
      const ready = await fetch(`${base}/health/ready`);
      const body = (await ready.json()) as { dependencies: Record<string, string> };
      expect({ service, status: ready.status, dependencies: Object.keys(body.dependencies).sort() }).toEqual({ service, status: 200, dependencies: [...dependencies].sort() });
      expect(Object.values(body.dependencies).every((state) => state === 'up')).toBe(true);
      const metrics = await fetch(`${base}/metrics`);
      expect({ service, status: metrics.status }).toEqual({ service, status: 200 });
      expect(await metrics.text()).toContain('http_requests_total');
    }
    expect(listeningPorts(apart.pid)).toEqual(Object.values(apart.servicePorts).sort((a, b) => a - b));
  });
});
