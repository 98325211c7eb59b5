import client from 'prom-client';

export interface HttpMetrics {
  registry: client.Registry;
  requests: client.Counter<'method' | 'route' | 'status'>;
  duration: client.Histogram<'method' | 'route' | 'status'>;
}

/**
 * One registry per service, every series labelled with the service, so services sharing a process keep their series
 * apart. The process's default metrics are not in it: the composition root collects them once (defaultMetricsRegistry).
 */
export function createMetrics(service: string): HttpMetrics {
  const registry = new client.Registry();
  registry.setDefaultLabels({ service });
  const requests = new client.Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new client.Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  return { registry, requests, duration };
}

/**
 * What every /metrics of a process serves (METRICS_ENABLED): the registries of all the services it runs and its
 * default metrics, or, disabled, nothing (404). The composition root hands one to every app (serveProcessMetrics); an
 * app without one serves its own registry.
 */
export interface ProcessMetrics {
  enabled: boolean;
  registries: client.Registry[];
}

let defaults: client.Registry | undefined;

/** The process's default metrics (CPU, memory, event loop, GC), collected from the first call on, once per process. */
export function defaultMetricsRegistry(): client.Registry {
  if (!defaults) {
    defaults = new client.Registry();
    client.collectDefaultMetrics({ register: defaults });
  }
  return defaults;
}

type MetricFamily = Awaited<ReturnType<client.Registry['getMetricsAsJSON']>>[number];

/**
 * One Prometheus text of several registries. Services of one process register the same metric names (each
 * http_requests_total labelled with its service), which Registry.merge refuses; the series of a name are gathered
 * into one family instead, each keeping its labels (and so its service).
 */
export async function renderMetrics(registries: readonly client.Registry[]): Promise<string> {
  const families = new Map<string, MetricFamily>();
  for (const registry of registries) {
    for (const metric of await registry.getMetricsAsJSON()) {
      const family = families.get(metric.name);
      if (family) family.values = [...family.values, ...metric.values];
      else families.set(metric.name, { ...metric, values: [...metric.values] });
    }
  }
  const merged = new client.Registry();
  for (const family of families.values()) {
    merged.registerMetric({ ...family, get: () => family } as unknown as client.Metric);
  }
  return merged.metrics();
}

/** The content type renderMetrics' text is served with. */
export const METRICS_CONTENT_TYPE = client.Registry.PROMETHEUS_CONTENT_TYPE;
