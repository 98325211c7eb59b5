import { z } from 'zod';
import { endpoint, withoutCredential, type Endpoint } from '../endpoint';

/*
 * Every service app (platform's createServiceApp) answers GET /health, /health/ready and /metrics itself, without an
 * identity. The gateway's are public at its root and under /api/v1; open's are public under /open/v1 (api/open.ts).
 */

/** GET /health of a service app: the process is up. */
export const serviceHealthAnswer = z.object({ status: z.literal('ok'), service: z.string() });

/**
 * GET /health/ready of a service app, when every dependency it checks answered in time. When one did not, the answer
 * is 503 with `{detail, status: 'unavailable', dependencies}`.
 */
export const serviceReadinessAnswer = z.object({
  status: z.literal('ready'),
  service: z.string(),
  /** Each dependency the service checks (database, event bus, cache, …), by name. */
  dependencies: z.record(z.string(), z.enum(['up', 'down'])),
});

/** GET /metrics of a service app: Prometheus' text exposition format. */
const METRICS_MEDIA = ['text/plain'] as const;

/** The gateway's own endpoints answer at its root and under /api/v1, without a key. */
const gatewayOwn = withoutCredential('', '/api/v1');

export const GATEWAY_HEALTH = endpoint({
  service: 'gateway',
  method: 'GET',
  path: '/health',
  summary: 'Liveness of the gateway: answers 200 while its process is up',
  exposed: gatewayOwn,
  answer: serviceHealthAnswer,
});

export const GATEWAY_HEALTH_READY = endpoint({
  service: 'gateway',
  method: 'GET',
  path: '/health/ready',
  summary: 'Readiness of the system as a client sees it: storage, event bus, counter store, auth and the search engine (503 when one is down)',
  exposed: gatewayOwn,
  answer: serviceReadinessAnswer,
});

export const GATEWAY_METRICS = endpoint({
  service: 'gateway',
  method: 'GET',
  path: '/metrics',
  summary: "The gateway's Prometheus metrics (requests, durations, fair-share schedulers)",
  exposed: gatewayOwn,
  produces: METRICS_MEDIA,
  answer: z.string(),
});

/** Every public endpoint the gateway service answers. */
export const GATEWAY_API: readonly Endpoint[] = [GATEWAY_HEALTH, GATEWAY_HEALTH_READY, GATEWAY_METRICS];
