import { endpoint, withoutCredential, type Endpoint } from '../endpoint';
import { serviceAppEndpoints } from './service-app';

/** The gateway's own endpoints answer at its root and under /api/v1, without a key. */
const gatewayOwn = withoutCredential('', '/api/v1');

const gateway = serviceAppEndpoints('gateway', 'the gateway', gatewayOwn);

export const GATEWAY_HEALTH = gateway.health;

export const GATEWAY_HEALTH_READY = endpoint({
  ...gateway.ready,
  summary: 'Readiness of the system as a client sees it: storage, event bus, counter store, auth and the search engine (503 when one is down)',
});

export const GATEWAY_METRICS = endpoint({ ...gateway.metrics, summary: "The gateway's Prometheus metrics (requests, durations, fair-share schedulers)" });

/** Every public endpoint the gateway service answers. */
export const GATEWAY_API: readonly Endpoint[] = [GATEWAY_HEALTH, GATEWAY_HEALTH_READY, GATEWAY_METRICS];
