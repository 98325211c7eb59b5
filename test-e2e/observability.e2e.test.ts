import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { alertRules, dashboardExpressions, missingMetrics, servedNames } from './support/observability-rules';
import { bearer, client, createKey, startSuiteSystem, useTrove, type ApartSystem, type Trove } from './support/system';

jest.setTimeout(180_000);

const DEPLOY = join(__dirname, '../deploy/observability');

/** The JSON lines of a system's output (a process per service prefixes each line with its name). */
function jsonLines(output: string): Array<Record<string, unknown>> {
  return output.split('\n').flatMap((line) => {
    const start = line.indexOf('{');
    if (start === -1) return [];
    try {
      return [JSON.parse(line.slice(start)) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
}

/** What every /metrics of the system serves: the gateway's, and each service's when they run apart. */
async function liveMetrics(baseUrl: string, servicePorts: Record<string, number>): Promise<string> {
  const urls = [baseUrl, ...Object.values(servicePorts).map((port) => `http://127.0.0.1:${port}`)];
  const texts = await Promise.all(
    urls.map(async (url) => {
      const res = await fetch(`${url}/metrics`);
      expect(res.status).toBe(200);
      return res.text();
    }),
  );
  return texts.join('\n');
}

describe('metrics, dashboard and alert rules against a live system', () => {
  const trove = useTrove({ env: { LOG_FORMAT: 'json' } });
  const api = trove.api;
  let key: string;

  beforeAll(async () => {
    key = await trove.keyFor(randomUUID(), ['admin']);
    const headers = bearer(key);
    const upload = await api('POST', '/api/v1/upload/gauges/product/batch', {
      headers,
      body: { records: [{ name: 'Pressure gauge', source_id: 'g1' }, { name: 'Flow gauge', source_id: 'g2' }, { collection_data: { nameless: true } }] },
    });
    expect(upload.status).toBe(201);
    // Searchable once indexed: the search waits for it.
    for (let i = 0; ; i++) {
      const found = await api('POST', '/api/v1/search/gauges', { headers, body: { query: 'pressure' } });
      expect(found.status).toBe(200);
      if (found.body.results.length > 0) break;
      if (i > 100) throw new Error('the uploaded records did not become searchable in 10 s');
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((await api('POST', '/api/v1/search/gauges', { headers, body: { query: 'what gauges measure flow?' } })).status).toBe(200);
    expect((await api('POST', '/api/v1/search/gauges', { headers, body: { query: 'zzzqqq' } })).status).toBe(200);
    const started = await api('POST', '/api/v1/export?collection=gauges&format=json', { headers });
    expect(started.status).toBe(202);
    for (let i = 0; ; i++) {
      const status = await api('GET', `/api/v1/export/${started.body.export_id}/status`, { headers });
      if (status.body.status === 'completed') break;
      if (i > 100) throw new Error('the export did not complete in 10 s');
      await new Promise((r) => setTimeout(r, 100));
    }
  });

  it('serves every metric the dashboard and the alert rules use', async () => {
    const served = servedNames(await liveMetrics(trove.baseUrl, trove.servicePorts));
    const { rules, problems } = alertRules(readFileSync(join(DEPLOY, 'alerts.yaml'), 'utf8'));
    expect(problems).toEqual([]);
    const dashboard = JSON.parse(readFileSync(join(DEPLOY, 'trove-dashboard.json'), 'utf8')) as unknown;
    const used = [
      ...rules.map((r) => ({ where: `alert ${r.alert}`, expr: r.expr })),
      ...dashboardExpressions(dashboard).map((p) => ({ where: `panel "${p.panel}"`, expr: p.expr })),
    ];

    expect(missingMetrics(used, served)).toEqual([]);
  });

  it("counts what the traffic did: records ingested and dead-lettered, searches by query type, a zero-result search, the export", async () => {
    const text = await liveMetrics(trove.baseUrl, trove.servicePorts);
    const value = (pattern: RegExp) => text.split('\n').filter((l) => pattern.test(l)).reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);

    expect(value(/^trove_records_ingested_total\{[^}]*outcome="created"/)).toBeGreaterThanOrEqual(2);
    expect(value(/^trove_records_dead_lettered_total\{[^}]*reason="invalid"/)).toBeGreaterThanOrEqual(1);
    expect(value(/^trove_upload_duration_seconds_count\{[^}]*status="complete"/)).toBeGreaterThanOrEqual(1);
    expect(value(/^trove_search_duration_seconds_count\{[^}]*query_type="keyword"/)).toBeGreaterThanOrEqual(2);
    expect(value(/^trove_search_duration_seconds_count\{[^}]*query_type="natural_language"/)).toBeGreaterThanOrEqual(1);
    expect(value(/^trove_search_zero_results_total\{/)).toBeGreaterThanOrEqual(1);
    expect(value(/^trove_indexing_lag_seconds_count\{/)).toBeGreaterThanOrEqual(2);
    expect(value(/^trove_export_duration_seconds_count\{[^}]*format="json",[^}]*status="completed"/)).toBe(1);
    expect(text).toMatch(/^trove_event_consumer_lag\{group="search\.indexer",service="search"\} \d+$/m);
    expect(text).toMatch(/^trove_circuit_breaker_state\{upstream="search",service="gateway"\} 0$/m);
  });

  it('writes an access log line per request with its route, status, tenant and request id, and never the key or the query string', async () => {
    const requestId = `obs-${randomUUID()}`;
    const res = await api('POST', '/api/v1/search/gauges?api_key=query-string-secret', { headers: { ...bearer(key), 'x-request-id': requestId }, body: { query: 'gauge' } });
    expect(res.status).toBe(200);
    await new Promise((r) => setTimeout(r, 200));

    const lines = jsonLines(trove.output()).filter((l) => l.msg === 'request completed' && l.requestId === requestId);
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 30, service: 'gateway', method: 'POST', route: '/api/v1/search/*', status: 200, durationMs: expect.any(Number), tenantId: expect.any(String) }),
    );
    // One info line per process that took the request up: a service in the gateway's process logs it at debug.
    const services = lines.filter((l) => l.level === 30).map((l) => l.service as string);
    expect(new Set(services).size).toBe(services.length);
    const output = trove.output();
    expect(output).not.toContain(key);
    expect(output).not.toContain('query-string-secret');
  });
});

interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
}

/** An OTLP/HTTP receiver of JSON traces (OTEL_EXPORTER_OTLP_PROTOCOL=http/json), keeping every span it is sent. */
async function otlpReceiver(): Promise<{ url: string; spans: ReceivedSpan[]; close(): Promise<void> }> {
  const spans: ReceivedSpan[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces' && req.headers['content-type']?.startsWith('application/json')) {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          resourceSpans?: Array<{
            resource?: { attributes?: Array<{ key: string; value: { stringValue?: string } }> };
            scopeSpans?: Array<{ spans?: Array<Omit<ReceivedSpan, 'service' | 'attributes'> & { attributes?: Array<{ key: string; value: Record<string, unknown> }> }> }>;
          }>;
        };
        for (const rs of body.resourceSpans ?? []) {
          const service = rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue ?? '?';
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              const attributes = Object.fromEntries((s.attributes ?? []).map((a) => [a.key, Object.values(a.value)[0]]));
              spans.push({ service, traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId || undefined, name: s.name, kind: s.kind, attributes });
            }
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('tracing across the gateway and the services (OTEL_* variables, every service its own process)', () => {
  let receiver: Awaited<ReturnType<typeof otlpReceiver>>;
  let system: Trove | ApartSystem | undefined;

  beforeAll(async () => {
    receiver = await otlpReceiver();
    system = await startSuiteSystem({
      apart: true,
      env: {
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_BSP_SCHEDULE_DELAY: '200',
      },
    });
  });
  afterAll(async () => {
    await system?.stop();
    await receiver?.close();
  });

  it('sends spans of the gateway and of the service that answered, in one trace', async () => {
    const api = client(system!.baseUrl);
    const key = await createKey(api, randomUUID(), ['admin']);
    const res = await api('POST', '/api/v1/search/traced', { headers: bearer(key), body: { query: 'anything' } });
    expect(res.status).toBe(200);

    const gatewaySearch = () =>
      receiver.spans.find((s) => s.service === 'trove-gateway' && s.kind === 2 && String(s.attributes['url.path'] ?? s.attributes['http.target'] ?? '').startsWith('/api/v1/search/traced'));
    // Each process sends its spans in batches of its own: wait for the search service's server span itself, not any span.
    for (let i = 0; !(gatewaySearch() && receiver.spans.some((s) => s.service === 'trove-search' && s.kind === 2 && s.traceId === gatewaySearch()!.traceId)); i++) {
      if (i > 100) throw new Error(`no spans of the search through the gateway in 10 s: ${JSON.stringify(receiver.spans.map((s) => [s.service, s.name]))}`);
      await new Promise((r) => setTimeout(r, 100));
    }

    const trace = receiver.spans.filter((s) => s.traceId === gatewaySearch()!.traceId);
    const searchServer = trace.find((s) => s.service === 'trove-search' && s.kind === 2);
    expect(searchServer).toBeDefined();
    // The search service's span is a child of the gateway's call to it: traceparent went through the proxy.
    const gatewaySpans = trace.filter((s) => s.service === 'trove-gateway');
    expect(gatewaySpans.map((s) => s.spanId)).toContain(searchServer!.parentSpanId);
    expect(system!.output()).not.toContain(key);
  });
});
