import type CircuitBreaker from 'opossum';
import client from 'prom-client';

export interface HttpMetrics {
  registry: client.Registry;
  requests: client.Counter<'method' | 'route' | 'status'>;
  duration: client.Histogram<'method' | 'route' | 'status'>;
  /** Refusals of a limit (HttpError.limit), counted as they are answered. */
  refusals: client.Counter<'limit'>;
}

/**
 * A service's registry: every series in it labelled with the service, so services sharing a process keep their series
 * apart. The process's default metrics are not in it: the composition root collects them once (defaultMetricsRegistry).
 */
export function serviceRegistry(service: string): client.Registry {
  const registry = new client.Registry();
  registry.setDefaultLabels({ service });
  return registry;
}

/** The HTTP metrics of a service, in its registry (a new one unless given: the one the composition root made for it). */
export function createMetrics(service: string, registry: client.Registry = serviceRegistry(service)): HttpMetrics {
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
  const refusals = new client.Counter({
    name: 'trove_limit_refusals_total',
    help: 'Requests refused by a rate limit or quota, by kind of limit (never by tenant)',
    labelNames: ['limit'] as const,
    registers: [registry],
  });
  return { registry, requests, duration, refusals };
}

/** A breaker's state as trove_circuit_breaker_state shows it. */
const BREAKER_STATES = { closed: 0, halfOpen: 1, open: 2 } as const;

interface BreakerMetrics {
  opens: client.Counter<'upstream'>;
  /** The breakers of the registry, by upstream: a service may hold several clients of one upstream. */
  breakers: Map<string, Set<CircuitBreaker>>;
}

const breakersByRegistry = new WeakMap<client.Registry, BreakerMetrics>();

/**
 * Reports a circuit breaker in the registry: trove_circuit_breaker_state{upstream} (0 closed, 1 half-open, 2 open; the
 * worst of the registry's breakers of that upstream), read when scraped, and trove_circuit_breaker_opens_total{upstream}.
 * A breaker shut down is forgotten.
 */
export function observeBreaker(registry: client.Registry, breaker: CircuitBreaker, upstream: string): void {
  let metrics = breakersByRegistry.get(registry);
  if (!metrics) {
    const breakers = new Map<string, Set<CircuitBreaker>>();
    new client.Gauge({
      name: 'trove_circuit_breaker_state',
      help: 'Circuit breaker state by upstream: 0 closed, 1 half-open, 2 open',
      labelNames: ['upstream'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const [name, set] of breakers) {
          let state = 0;
          for (const b of set) state = Math.max(state, b.opened ? BREAKER_STATES.open : b.halfOpen ? BREAKER_STATES.halfOpen : BREAKER_STATES.closed);
          this.set({ upstream: name }, state);
        }
      },
    });
    const opens = new client.Counter({
      name: 'trove_circuit_breaker_opens_total',
      help: 'Times a circuit breaker opened, by upstream',
      labelNames: ['upstream'] as const,
      registers: [registry],
    });
    metrics = { opens, breakers };
    breakersByRegistry.set(registry, metrics);
  }
  const { opens, breakers } = metrics;
  let set = breakers.get(upstream);
  if (!set) breakers.set(upstream, (set = new Set()));
  set.add(breaker);
  // Zero from the start, so the series exists (and rate() sees the first opening) before any breaker opens.
  opens.inc({ upstream }, 0);
  breaker.on('open', () => opens.inc({ upstream }));
  breaker.on('shutdown', () => {
    set.delete(breaker);
    if (set.size === 0 && breakers.get(upstream) === set) breakers.delete(upstream);
  });
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

/** What a cache lookup found: the answer, nothing, or a cache that could not answer. */
export type CacheResult = 'hit' | 'miss' | 'error';

const cacheLookupsByRegistry = new WeakMap<client.Registry, client.Counter<'cache' | 'result'>>();

/**
 * Counts the lookups of one cache in trove_cache_lookups_total{cache, result} (made once per registry, shared by its
 * caches); answers the function that counts one, its series made up front so recording is an increment.
 */
export function cacheLookups(registry: client.Registry, cache: string): (result: CacheResult) => void {
  let counter = cacheLookupsByRegistry.get(registry);
  if (!counter) {
    counter = new client.Counter({
      name: 'trove_cache_lookups_total',
      help: 'Cache lookups by cache and result (hit, miss, error)',
      labelNames: ['cache', 'result'] as const,
      registers: [registry],
    });
    cacheLookupsByRegistry.set(registry, counter);
  }
  const of = (result: CacheResult) => {
    const child = counter.labels({ cache, result });
    child.inc(0);
    return child;
  };
  const children = { hit: of('hit'), miss: of('miss'), error: of('error') };
  return (result) => children[result].inc();
}
